//! The rendered columns of the corpus table (`cargo xtask gltfpack-table`): each output of a
//! corpus row (`pack`, `pack --compress meshopt`, gltfpack, `gltfpack -cc`) drawn by three.js
//! (headless chromium, `web/test/corpus.mjs`: `pack`'s files through QTangentPlugin,
//! gltfpack's through three.js alone with its meshopt decoder) and by Bevy (`bevy_qtangent`'s
//! viewer headless on the Vulkan adapter: `pack`'s files through the plugin, gltfpack's through
//! Bevy's own loader), each against the source drawn by the same engine alone from the same
//! camera, posed at 1 s where the source has animations. A cell is the PSNR over every pixel, or
//! why there is no picture (a loader that refuses or panics on the file).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The outputs of a row, in the table's order.
pub const VARIANTS: [&str; 4] = ["pack", "pack meshopt", "gltfpack", "gltfpack -cc"];

/// Whether a variant is `pack`'s (drawn through the plugin) or gltfpack's (the engine alone).
fn is_pack(variant: usize) -> bool {
    variant < 2
}

/// The pose: 1 s into animation 0 (the morph grid at weight 1 on its bump; the Fox mid-stride).
const TIME: &str = "1";

/// One row: its name, its source file and its four outputs (in [`VARIANTS`] order).
#[derive(Clone)]
pub struct Row {
    pub name: String,
    pub source: String,
    pub outputs: [String; 4],
    /// The source with MikkTSpace tangents added (`gltf-transform tangents`), for a source with
    /// normal maps and no TANGENT: three.js draws such a file with screen-space frames, so its
    /// picture of the source is not the frames the glTF spec recommends and `pack` writes.
    pub tangent_source: Option<String>,
}

impl Row {
    /// The same outputs against the source with MikkTSpace tangents, named `NAME (MikkTSpace
    /// source)`, where there is one.
    pub fn with_tangent_source(&self) -> Option<Row> {
        self.tangent_source.as_ref().map(|t| Row {
            name: format!("{} (MikkTSpace source)", self.name),
            source: t.clone(),
            outputs: self.outputs.clone(),
            tangent_source: None,
        })
    }

    /// Whether the source has animations (a byte search of its JSON: xtask reads no JSON).
    fn animated(&self) -> bool {
        std::fs::read(&self.source).is_ok_and(|b| {
            let head = &b[..b.len().min(4 << 20)];
            head.windows(12).any(|w| w == b"\"animations\"")
        })
    }
}

/// A JSON string literal of `s`.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A cell's text from a failure: its first line that says something, cut to 48 characters.
fn failed(why: &str) -> String {
    let line = why
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no output");
    let short: String = line.chars().take(48).collect();
    let more = if line.chars().count() > 48 { "…" } else { "" };
    format!("fails: {short}{more}")
}

/// The three.js column: one cell a variant a row. `dir` holds the outputs; links to the
/// sources' folders are made in it, so one server serves them all.
pub fn three_js(root: &Path, dir: &Path, rows: &[Row]) -> Vec<[String; 4]> {
    let web = root.join("web");
    let not_run = |why: &str| vec![std::array::from_fn(|_| format!("not run: {why}")); rows.len()];
    if !web.join("node_modules/three").is_dir() {
        return not_run("web/node_modules missing (cargo xtask test installs it)");
    }
    let mut list = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        let source = Path::new(&row.source);
        let link = dir.join(format!("source-{k}"));
        let _ = std::fs::remove_file(&link);
        #[cfg(unix)]
        if let Err(e) = std::os::unix::fs::symlink(source.parent().unwrap_or(Path::new(".")), &link)
        {
            return not_run(&format!("{}: {e}", link.display()));
        }
        let name = source
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let variants: Vec<String> = VARIANTS
            .iter()
            .zip(&row.outputs)
            .enumerate()
            .map(|(v, (variant, file))| {
                let file = Path::new(file)
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                let plugin = if is_pack(v) {
                    "{\"mode\":\"gpu\"}"
                } else {
                    "null"
                };
                format!(
                    "{{\"name\":{},\"file\":{},\"plugin\":{plugin}}}",
                    quoted(variant),
                    quoted(&file)
                )
            })
            .collect();
        let time = if row.animated() { TIME } else { "null" };
        list.push(format!(
            "{{\"name\":{},\"source\":{},\"time\":{time},\"variants\":[{}]}}",
            quoted(&row.name),
            quoted(&format!("source-{k}/{name}")),
            variants.join(",")
        ));
    }
    let list_file = dir.join("three-js.json");
    if let Err(e) = std::fs::write(&list_file, format!("[{}]\n", list.join(",\n"))) {
        return not_run(&format!("{}: {e}", list_file.display()));
    }
    let pictures = dir.join("three-js");
    let args =
        [dir, list_file.as_path(), pictures.as_path()].map(|p| p.to_string_lossy().into_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let printed = match crate::npm::node(&web.join("test/corpus.mjs"), &args) {
        Ok(printed) => printed,
        Err(e) => return not_run(&failed(&e)),
    };
    rows.iter()
        .map(|row| {
            std::array::from_fn(|v| {
                printed
                    .lines()
                    .find_map(|l| {
                        let mut cells = l.splitn(3, '\t');
                        let hit = cells.next() == Some(row.name.as_str())
                            && cells.next() == Some(VARIANTS[v]);
                        hit.then(|| cells.next().unwrap_or("").replace("failed:", "fails:"))
                    })
                    .unwrap_or_else(|| "no result".into())
            })
        })
        .collect()
}

/// What one viewer run gave: its camera line, or why it drew nothing; and the first warning
/// Bevy's glTF loader logged.
struct Viewed {
    camera: Result<String, String>,
    warning: Option<String>,
}

fn view(viewer: &Path, file: &str, out: &Path, args: &[&str]) -> Viewed {
    let run = Command::new(viewer)
        .arg(file)
        .arg("--screenshot")
        .arg(out)
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output();
    let Ok(run) = run else {
        return Viewed {
            camera: Err(format!("could not run {}", viewer.display())),
            warning: None,
        };
    };
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    let warning = stderr
        .lines()
        .find(|l| l.contains("WARN") && l.contains("bevy_gltf"))
        .and_then(|l| l.rsplit(": ").next())
        .map(|w| w.trim().to_string());
    let camera = if run.status.success() && out.is_file() {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("camera:"))
            .map(|c| c.trim().to_string())
            .ok_or_else(|| "printed no camera".to_string())
    } else {
        // A panic says where and why on two lines; a refusal on the viewer's own line.
        let why = stderr
            .lines()
            .skip_while(|l| !l.contains("panicked at"))
            .nth(1)
            .map(|l| format!("panics: {}", l.trim()))
            .or_else(|| {
                // `viewer: FILE: why`: the why.
                let line = stderr.lines().find(|l| l.starts_with("viewer:"))?;
                Some(format!(
                    "refused: {}",
                    line.rsplit(": ").next().unwrap_or(line)
                ))
            })
            .unwrap_or_else(|| format!("exit {}", run.status));
        Err(why)
    };
    Viewed { camera, warning }
}

/// The Bevy column, and the warnings Bevy's loader logged (row, variant, warning). `viewer`:
/// the built `bevy_qtangent` viewer; `judges`: the npm folder holding sharp.
pub fn bevy(
    viewer: &Path,
    judges: &Path,
    dir: &Path,
    rows: &[Row],
) -> (Vec<[String; 4]>, Vec<String>) {
    let pictures = dir.join("bevy");
    let _ = std::fs::create_dir_all(&pictures);
    let psnr_script = Path::new(env!("CARGO_MANIFEST_DIR")).join("npm/psnr.mjs");
    let mut warnings = Vec::new();
    let mut cells = Vec::new();
    for (k, row) in rows.iter().enumerate() {
        let pose: Vec<&str> = if row.animated() {
            vec!["--animation", "0", "--time", TIME]
        } else {
            Vec::new()
        };
        let picture = |what: &str| pictures.join(format!("{k}-{what}.png"));
        let reference = picture("source");
        let _ = std::fs::remove_file(&reference);
        let standard = [&["--mode", "standard"][..], &pose].concat();
        let source = view(viewer, &row.source, &reference, &standard);
        if let Some(w) = source.warning {
            warnings.push(format!("{} / source: {w}", row.name));
        }
        let camera = match source.camera {
            Ok(camera) => camera,
            Err(why) => {
                cells.push(std::array::from_fn(|_| format!("source {}", failed(&why))));
                continue;
            }
        };
        let row_cells: [String; 4] = std::array::from_fn(|v| {
            let out: PathBuf = picture(&VARIANTS[v].replace([' ', '-'], ""));
            let _ = std::fs::remove_file(&out);
            let mode: &[&str] = if is_pack(v) {
                &[]
            } else {
                &["--mode", "standard"]
            };
            let args = [mode, &["--camera", camera.as_str()], &pose].concat();
            let viewed = view(viewer, &row.outputs[v], &out, &args);
            if let Some(w) = viewed.warning {
                warnings.push(format!("{} / {}: {w}", row.name, VARIANTS[v]));
            }
            match viewed.camera {
                Err(why) => failed(&why),
                Ok(_) => {
                    let pair = [judges, &reference, &out].map(|p| p.to_string_lossy().into_owned());
                    let pair: Vec<&str> = pair.iter().map(String::as_str).collect();
                    crate::npm::node(&psnr_script, &pair)
                        .map_or_else(|e| failed(&e), |p| p.trim().replace("failed:", "fails:"))
                }
            }
        });
        cells.push(row_cells);
    }
    (cells, warnings)
}
