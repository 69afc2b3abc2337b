//! Where each input's output goes, decided and checked before any work: the output's extension
//! decides what is written (`.glb`, or `.gltf` with its `.bin` beside it); a single input takes
//! a file name, several inputs or a folder take a folder mirrored under `-o`; an output without
//! an extension for a single input, an existing folder for a single output, the input itself
//! (without `--force`) and two inputs onto one output are refused. An input that does not exist
//! and holds `*`, `?` or `[` is a glob pattern (`'assets/**/*.gltf'`, for shells that pass it
//! on quoted), expanded here: several inputs, mirrored from the folder before the first
//! wildcard. Writing is whole or not at all (a temporary file beside the output, renamed into
//! place).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// What an output file is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Glb,
    /// A `.gltf` with its buffer in a `.bin` of the same stem beside it.
    Gltf,
}

/// One input and where it goes.
#[derive(Debug, Clone)]
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
    pub kind: Kind,
}

/// The mesh files this tool reads.
const INPUTS: [&str; 3] = ["gltf", "glb", "obj"];

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// The kind `output`'s extension asks for, or why it names none.
fn kind_of(output: &Path) -> Result<Kind, String> {
    match extension(output).as_deref() {
        Some("glb") => Ok(Kind::Glb),
        // Its .bin is named by a URI, which is text.
        Some("gltf") if output.file_name().and_then(|n| n.to_str()).is_none() => Err(format!(
            "-o {}: a .gltf names its .bin by a URI, which needs a UTF-8 file name",
            output.display()
        )),
        Some("gltf") => Ok(Kind::Gltf),
        Some(other) => Err(format!(
            "-o {}: the extension decides what is written, and .{other} is not one of .glb or .gltf",
            output.display()
        )),
        None => Err(format!(
            "-o {}: no extension; the extension decides what is written: .glb, or .gltf (with a .bin beside it); several inputs take a folder ending in /",
            output.display()
        )),
    }
}

/// Every mesh file under `dir`, recursively, sorted, leaving out the folder `skip` (the output
/// folder, when it lies inside an input folder: a second run must not take its own outputs as
/// inputs).
fn meshes_under(dir: &Path, skip: &Path, found: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() && same_file(&p, skip) {
            continue;
        }
        if p.is_dir() {
            meshes_under(&p, skip, found)?;
        } else if extension(&p).is_some_and(|e| INPUTS.contains(&e.as_str())) {
            found.push(p);
        }
    }
    Ok(())
}

/// Whether `output` names a folder: it exists as one, or it ends in a path separator.
fn names_folder(output: &Path) -> bool {
    output.is_dir()
        || output
            .to_string_lossy()
            .ends_with(std::path::MAIN_SEPARATOR)
        || output.to_string_lossy().ends_with('/')
}

/// Whether `input` is a glob pattern: absent, with a wildcard in it.
fn is_pattern(input: &Path) -> bool {
    !input.exists() && input.to_string_lossy().contains(['*', '?', '['])
}

/// The files and folders glob `pattern` matches, sorted, and the folder before its first
/// wildcard (what the outputs mirror from); refuses a pattern that is malformed or matches
/// nothing.
fn expand(pattern: &Path) -> Result<(Vec<PathBuf>, PathBuf), String> {
    let text = pattern.to_string_lossy();
    let paths = glob::glob(&text).map_err(|e| format!("{text}: not a glob pattern: {e}"))?;
    let mut found: Vec<PathBuf> = paths.filter_map(Result::ok).collect();
    found.sort();
    if found.is_empty() {
        return Err(format!("{text}: no file or folder matches this pattern"));
    }
    let root: PathBuf = pattern
        .components()
        .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
        .collect();
    Ok((found, root))
}

/// The jobs for `inputs` written under `output`: refuses, naming the flag to change, whatever
/// the rules of the module docs forbid.
pub fn plan(inputs: &[PathBuf], output: &Path, force: bool) -> Result<Vec<Job>, String> {
    if inputs.is_empty() {
        return Err("no input: name .gltf, .glb or .obj files, or folders holding them".into());
    }
    let mut sources: Vec<(PathBuf, PathBuf)> = Vec::new(); // (file, the root it mirrors from)
    for input in inputs.iter().filter(|i| is_pattern(i)) {
        let (found, root) = expand(input)?;
        // The output folder and what lies in it are never inputs (a second run of the same
        // pattern must not take the first run's outputs).
        let out = output.canonicalize().ok();
        let in_output = |f: &Path| {
            out.as_ref()
                .is_some_and(|o| f.canonicalize().is_ok_and(|f| f.starts_with(o)))
        };
        for f in found.into_iter().filter(|f| !in_output(f)) {
            if f.is_dir() {
                let mut under = Vec::new();
                meshes_under(&f, output, &mut under)?;
                sources.extend(under.into_iter().map(|m| (m, root.clone())));
            } else if extension(&f).is_some_and(|e| INPUTS.contains(&e.as_str())) {
                sources.push((f, root.clone()));
            }
        }
    }
    if inputs.iter().any(|i| is_pattern(i)) && sources.is_empty() {
        return Err("the patterns match no .gltf, .glb or .obj file".into());
    }
    for input in inputs.iter().filter(|i| !is_pattern(i)) {
        if input.is_dir() {
            let mut found = Vec::new();
            meshes_under(input, output, &mut found)?;
            if found.is_empty() {
                return Err(format!(
                    "{}: no .gltf, .glb or .obj file in this folder",
                    input.display()
                ));
            }
            sources.extend(found.into_iter().map(|f| (f, input.clone())));
        } else if input.is_file() {
            if !extension(input).is_some_and(|e| INPUTS.contains(&e.as_str())) {
                return Err(format!(
                    "{}: not a mesh this tool reads (.gltf, .glb or .obj)",
                    input.display()
                ));
            }
            let root = input.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            sources.push((input.clone(), root));
        } else {
            return Err(format!("{}: no such file or folder", input.display()));
        }
    }
    // A file named twice (by a pattern and by itself, or under two matches) is packed once.
    let mut seen = std::collections::HashSet::new();
    sources.retain(|(file, _)| seen.insert(resolved(file)));
    let single = inputs.len() == 1 && !inputs[0].is_dir() && !is_pattern(&inputs[0]);
    let jobs: Vec<Job> = if single {
        if names_folder(output) {
            return Err(format!(
                "-o {}: is a folder, and one input writes one file: name it, e.g. -o {}",
                output.display(),
                output.join(stem_glb(&sources[0].0)).display()
            ));
        }
        let kind = kind_of(output)?;
        vec![Job {
            input: sources[0].0.clone(),
            output: output.to_path_buf(),
            kind,
        }]
    } else {
        if output.is_file() || (!names_folder(output) && extension(output).is_some()) {
            return Err(format!(
                "-o {}: several inputs write several files: -o takes a folder (mirrored from each input's)",
                output.display()
            ));
        }
        sources
            .iter()
            .map(|(file, root)| {
                let rel = file.strip_prefix(root).unwrap_or(file);
                let out = output.join(rel).with_extension("glb");
                Job {
                    input: file.clone(),
                    output: out,
                    kind: Kind::Glb,
                }
            })
            .collect()
    };
    refuse_collisions(&jobs, force)?;
    Ok(jobs)
}

/// `stem.glb` of `path`.
fn stem_glb(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
    format!("{stem}.glb")
}

/// The files a job writes: the output, and a `.gltf`'s `.bin`.
pub fn written_files(job: &Job) -> Vec<PathBuf> {
    match job.kind {
        Kind::Glb => vec![job.output.clone()],
        Kind::Gltf => vec![job.output.clone(), job.output.with_extension("bin")],
    }
}

/// Same path, compared by what exists (canonical) where it exists.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A path as the file system resolves it where it exists (else as written).
fn resolved(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// `path` and, for a `.gltf`, the buffers and images its URIs name beside it (data URIs hold
/// no file).
fn with_referenced(path: &Path) -> Vec<PathBuf> {
    let mut files = vec![path.to_path_buf()];
    if extension(path).as_deref() == Some("gltf") {
        let dir = path.parent().unwrap_or(Path::new("."));
        let json: Value = std::fs::read(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        let uris = ["buffers", "images"]
            .iter()
            .filter_map(|k| json[*k].as_array())
            .flatten()
            .filter_map(|e| e["uri"].as_str())
            .filter(|u| !u.starts_with("data:"));
        files.extend(uris.map(|u| dir.join(u)));
    }
    files
}

/// Refuses an output that would overwrite a file an input is read from (without `force`) and
/// two outputs on one path. Each input's files are resolved once.
fn refuse_collisions(jobs: &[Job], force: bool) -> Result<(), String> {
    let mut inputs: HashMap<PathBuf, &Path> = HashMap::new();
    if !force {
        for job in jobs {
            for f in with_referenced(&job.input) {
                inputs.entry(resolved(&f)).or_insert(&job.input);
            }
        }
    }
    let mut seen: HashMap<PathBuf, &Path> = HashMap::new();
    for job in jobs {
        for out in written_files(job) {
            if let Some(input) = inputs.get(&resolved(&out)) {
                return Err(format!(
                    "-o {}: would overwrite {}, which {} is read from; name another output, or add --force",
                    out.display(),
                    out.display(),
                    input.display()
                ));
            }
            if let Some(first) = seen.insert(resolved(&out), &job.input) {
                return Err(format!(
                    "{} and {} would both write {}: pack them into different folders",
                    first.display(),
                    job.input.display(),
                    out.display()
                ));
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it, renamed into place
/// (makes the folder first). Errors name the file.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::files::write_bytes(path, bytes)
}

/// Writes the GLB `glb` as `job` asks: as it is, or split into a `.gltf` whose buffer 0 is a
/// `.bin` of the same stem (images embedded in buffer views stay there; the EXT_meshopt
/// fallback buffer has no URI, as before).
pub fn write(job: &Job, glb: &[u8]) -> Result<(), String> {
    match job.kind {
        Kind::Glb => write_whole(&job.output, glb),
        Kind::Gltf => {
            let (mut json, bin) = split_glb(glb)?;
            let bin_path = job.output.with_extension("bin");
            // A URI: percent-encoded (RFC 3986), so a name with a space or a `%` reads back.
            let uri = bin_path
                .file_name()
                .and_then(|n| n.to_str())
                .map(|n| urlencoding::encode(n).into_owned())
                .ok_or_else(|| format!("{}: not a UTF-8 name", bin_path.display()))?;
            if let Some(buffer) = json
                .get_mut("buffers")
                .and_then(Value::as_array_mut)
                .and_then(|b| b.first_mut())
            {
                buffer["uri"] = Value::String(uri);
            }
            // The .bin and the .gltf are whole only together: written under one guard, so Ctrl-C
            // comes before or after both, and a failure of the second removes the first.
            let text = serde_json::to_vec(&json).map_err(|e| e.to_string())?;
            let _writing = crate::files::writing();
            crate::files::write_bytes_held(&bin_path, bin)?;
            crate::files::write_bytes_held(&job.output, &text).inspect_err(|_| {
                let _ = std::fs::remove_file(&bin_path);
            })
        }
    }
}

/// A GLB's JSON and binary chunk.
fn split_glb(glb: &[u8]) -> Result<(Value, &[u8]), String> {
    let word = |at: usize| -> Result<usize, String> {
        glb.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| "the packed GLB is cut short".to_string())
    };
    let json_len = word(12)?;
    let json = glb
        .get(20..20 + json_len)
        .ok_or("the packed GLB's JSON chunk is cut short")?;
    let json: Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    let at = 20 + json_len;
    let bin = if glb.len() > at {
        let len = word(at)?;
        glb.get(at + 8..at + 8 + len)
            .ok_or("the packed GLB's binary chunk is cut short")?
    } else {
        &[]
    };
    Ok((json, bin))
}

/// Bytes of `path` and, for a `.gltf`, of the files its URIs name beside it.
pub fn bytes_on_disk(path: &Path) -> u64 {
    with_referenced(path)
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum()
}
