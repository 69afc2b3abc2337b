//! Docs that are true: every repository path named in the README, in `docs/*.md`, in the
//! comments of the sources (`src/`, `shaders/`, `examples/`, `tests/`, `xtask/src/`, `cli/`,
//! `lab/`) and in the
//! generated WGSL header exists.
//!
//! A path is a token starting with `src/`, `shaders/`, `docs/`, `tests/`, `examples/`, `xtask/`,
//! `cli/`, `lab/` or `.ci/`, or naming a top-level file (`Cargo.toml`, `README.md`, `CHANGELOG.md`,
//! `LICENSE-*`), and in Markdown any link to a relative file. What follows the path is allowed:
//! `::item`, `:line`, `#anchor`. Globs (`tests/it/*.rs`) must match a file, brace lists
//! (`load_gltf/{materials,qtangent}.rs`) name each file; a component with a placeholder
//! (`<target>`, `{name}`) needs only the folder before it; paths under `.gitignore`d folders are
//! made at run time and not checked.

use std::path::{Path, PathBuf};

/// Where paths start.
const PREFIXES: &[&str] = &[
    "src/",
    "shaders/",
    "docs/",
    "tests/",
    "examples/",
    "xtask/",
    "cli/",
    "lab/",
    ".ci/",
];

/// Top-level files named without a folder.
const TOP_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "CHANGELOG.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "LICENSE-*",
];

/// One path named somewhere: the file and line naming it, and the path as written.
struct Named {
    file: String,
    line: usize,
    path: String,
}

#[test]
fn every_repository_path_named_in_the_docs_and_comments_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ignored = gitignored_folders(root);
    let mut named = Vec::new();
    let mut markdown = vec![root.join("README.md")];
    markdown.extend(files_under(&root.join("docs"), &["md"]));
    for file in &markdown {
        let text = read(file);
        named.extend(paths_in(root, file, &text));
        named.extend(markdown_links(root, file, &text));
    }
    let mut sources = Vec::new();
    for (dir, ext) in [
        ("src", "rs"),
        ("shaders", "wgsl"),
        ("examples", "rs"),
        ("tests", "rs"),
        ("xtask/src", "rs"),
        ("cli", "rs"),
        ("lab", "rs"),
    ] {
        sources.extend(files_under(&root.join(dir), &[ext]));
    }
    for file in &sources {
        named.extend(paths_in(root, file, &comments(&read(file))));
    }
    // The header generated from the crate's tables names the tables' files.
    let header = comments(qtangent::Wgsl::Library.source());
    named.extend(paths_in(
        root,
        Path::new("(generated WGSL header)"),
        &header,
    ));
    assert!(
        named.len() > 100,
        "only {} paths found: is the scan broken?",
        named.len()
    );
    let missing: Vec<String> = named
        .iter()
        .filter(|n| !ignored.iter().any(|i| n.path.starts_with(i.as_str())))
        .filter(|n| !exists(root, &n.path))
        .map(|n| format!("{}:{}: {}", n.file, n.line, n.path))
        .collect();
    println!(
        "{} repository paths named, {} missing",
        named.len(),
        missing.len()
    );
    assert!(
        missing.is_empty(),
        "{} paths named that do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// The scan itself: what counts as a path, what is cut from it, and what is skipped.
#[test]
fn the_scan_finds_paths_and_cuts_their_suffixes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = "see src/quat.rs::Quat, shaders/lit.wgsl:12 and `tests/it/*.rs`.\n\
                (docs/TESTING.md#the-test-command) https://x.org/src/no.rs ../src/no.rs\n\
                LICENSE-MIT; src/mesh/load_gltf/{materials,nodes}.rs xtask/fuzz/corpus/<t>/\n";
    let found: Vec<(usize, String)> = paths_in(root, Path::new("t.md"), text)
        .into_iter()
        .map(|n| (n.line, n.path))
        .collect();
    let expect = [
        (1, "src/quat.rs"),
        (1, "shaders/lit.wgsl"),
        (1, "tests/it/*.rs"),
        (2, "docs/TESTING.md"),
        (3, "LICENSE-MIT"),
        (3, "src/mesh/load_gltf/{materials,nodes}.rs"),
        (3, "xtask/fuzz/corpus/<t>/"),
    ];
    let expect: Vec<(usize, String)> = expect.iter().map(|&(l, p)| (l, p.into())).collect();
    assert_eq!(found, expect);
    assert!(exists(root, "tests/it/*.rs"));
    assert!(!exists(root, "tests/it/*.wgsl"));
    assert!(!exists(
        root,
        "src/mesh/load_gltf/{materials,no_such_file}.rs"
    ));
    assert!(exists(root, "xtask/src/<anything>.rs"));
    assert!(!exists(root, "src/no_such_folder/<anything>.rs"));
    let code = "let s = \"// src/in_a_string.rs\"; // src/quat.rs\nlet c = '\"'; /* docs/ */\n";
    let comment_paths: Vec<String> = paths_in(root, Path::new("t.rs"), &comments(code))
        .into_iter()
        .map(|n| n.path)
        .collect();
    assert_eq!(comment_paths, ["src/quat.rs", "docs/"]);
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir` (recursively) with one of `exts`, sorted.
fn files_under(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The folders `.gitignore` names (`/qmaps/`, `/xtask/fuzz/corpus/`): made at run time.
fn gitignored_folders(root: &Path) -> Vec<String> {
    read(&root.join(".gitignore"))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.trim_start_matches('/').to_string())
        .collect()
}

/// The comments of Rust or WGSL source, other text blanked, lines kept: `//` to the end of the
/// line and `/* … */`; string, raw string and char literals skipped (a `//` in a URL string is
/// no comment).
fn comments(code: &str) -> String {
    let c: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    // Blanks the literal or code in c[from..to], keeping its newlines.
    let blank = |out: &mut String, from: usize, to: usize| {
        out.extend(c[from..to].iter().filter(|&&ch| ch == '\n'));
    };
    while i < c.len() {
        let next = c.get(i + 1).copied();
        let start = i;
        match (c[i], next) {
            ('/', Some('/')) => {
                while i < c.len() && c[i] != '\n' {
                    out.push(c[i]);
                    i += 1;
                }
                continue;
            }
            ('/', Some('*')) => {
                while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                    out.push(c[i]);
                    i += 1;
                }
                i = (i + 2).min(c.len());
                continue;
            }
            ('"', _) => i = string_end(&c, i + 1, 0),
            ('r', Some('"' | '#')) if i == 0 || !is_ident(c[i - 1]) => {
                let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
                if c.get(i + 1 + hashes) == Some(&'"') {
                    i = string_end(&c, i + 2 + hashes, hashes);
                } else {
                    i += 1;
                }
            }
            ('\'', Some('\\')) => {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            }
            ('\'', Some(_)) if c.get(i + 2) == Some(&'\'') => i += 3,
            _ => i += 1,
        }
        blank(&mut out, start, i.min(c.len()));
    }
    out
}

/// The index after a string literal whose body starts at `i`: a plain string (escapes) when
/// `hashes` is 0 and it is not raw, else a raw string closed by `"` and `hashes` `#`s.
fn string_end(c: &[char], mut i: usize, hashes: usize) -> usize {
    let raw = hashes > 0 || (i >= 2 && c[i - 2] == 'r');
    while i < c.len() {
        if !raw && c[i] == '\\' {
            i += 2;
            continue;
        }
        if c[i] == '"'
            && c[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&h| h == '#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    c.len()
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// Characters a path token is made of (`:` and `#` start the allowed suffixes, `<>{}` and `*`
/// placeholders and globs).
fn is_path_char(ch: char) -> bool {
    ch.is_alphanumeric() || "_-./*:#<>{}".contains(ch)
}

/// The repository paths in `text` (see the module docs), with their line numbers.
fn paths_in(root: &Path, file: &Path, text: &str) -> Vec<Named> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let c: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < c.len() {
            if !is_path_char(c[i]) {
                i += 1;
                continue;
            }
            // A token: path characters, and commas inside braces.
            let start = i;
            let mut depth = 0;
            while i < c.len() && (is_path_char(c[i]) || (c[i] == ',' && depth > 0)) {
                depth += match c[i] {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                i += 1;
            }
            let token: String = c[start..i].iter().collect();
            if let Some(path) = repository_path(&token) {
                out.push(Named {
                    file: shown(root, file),
                    line: n + 1,
                    path,
                });
            }
        }
    }
    out
}

/// `token` as a repository path with its suffixes (`::item`, `:line`, `#anchor`) and trailing
/// punctuation cut, or `None` when it names none.
fn repository_path(token: &str) -> Option<String> {
    let path = token.split([':', '#']).next().unwrap_or_default();
    let path = path.trim_end_matches(['.', ',', ';']);
    let is_path = PREFIXES.iter().any(|p| path.starts_with(p)) || TOP_FILES.contains(&path);
    is_path.then(|| path.to_string())
}

/// The relative files linked from Markdown (`[text](target)`, `![alt](target)`), resolved
/// against the linking file's folder and named relative to the root.
fn markdown_links(root: &Path, file: &Path, text: &str) -> Vec<Named> {
    let dir = file.parent().unwrap_or(root);
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let target = rest[..rest.find(')').unwrap_or(rest.len())].trim();
            let target = target.split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved = normalise(&dir.join(target));
            let path = resolved.strip_prefix(root).map_or_else(
                |_| resolved.display().to_string(),
                |p| p.display().to_string(),
            );
            out.push(Named {
                file: shown(root, file),
                line: n + 1,
                path,
            });
        }
    }
    out
}

/// `path` with `.` and `..` components folded.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn shown(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Whether `path` (relative to `root`) names something that exists: every alternative of a
/// brace list, a glob that matches, or the folder before a placeholder.
fn exists(root: &Path, path: &str) -> bool {
    if let (Some(open), Some(close)) = (path.find('{'), path.find('}')) {
        let inner = &path[open + 1..close];
        if inner.contains(',') {
            return inner.split(',').all(|alt| {
                exists(
                    root,
                    &format!("{}{alt}{}", &path[..open], &path[close + 1..]),
                )
            });
        }
    }
    let mut here = vec![root.to_path_buf()];
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if part.contains(['<', '>', '{', '}']) {
            return here.iter().any(|d| d.is_dir());
        }
        here = here
            .iter()
            .flat_map(|d| matching(d, part))
            .collect::<Vec<_>>();
        if here.is_empty() {
            return false;
        }
    }
    true
}

/// The entries of `dir` that `part` names: itself, or those a `*` glob matches.
fn matching(dir: &Path, part: &str) -> Vec<PathBuf> {
    if !part.contains('*') {
        let p = dir.join(part);
        return if p.exists() { vec![p] } else { Vec::new() };
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| glob(part, &e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

/// Whether `name` matches `pattern`, where `*` is any run of characters.
fn glob(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            name.starts_with(head)
                && (head.len()..=name.len())
                    .any(|i| name.is_char_boundary(i) && glob(tail, &name[i..]))
        }
    }
}

/// Every `docs/*.md` is compiled as doc tests: named in `src/lib.rs`'s `doc_snippets` list, or
/// (BEVY.md, whose snippets need Bevy) included by `integrations/bevy/src/lib.rs`.
#[test]
fn every_doc_is_a_doc_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = read(&root.join("src/lib.rs"));
    let bevy = read(&root.join("integrations/bevy/src/lib.rs"));
    for file in files_under(&root.join("docs"), &["md"]) {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let included = if name == "BEVY.md" {
            bevy.contains("include_str!(\"../../../docs/BEVY.md\")")
        } else {
            lib.contains(&format!("= \"{name}\""))
        };
        assert!(
            included,
            "docs/{name}: its snippets are not compiled as doc tests"
        );
    }
}
