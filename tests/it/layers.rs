//! The layering of docs/ARCHITECTURE.md, checked: a module of `src/` names only modules below
//! it (`crate::<module>` in code; comments and doc comments may point anywhere). The order is
//! the layers bottom up — core, files, CPU preparation, products, GPU, lab — and, within a
//! layer, the order its modules build on each other.

use std::path::Path;

/// Bottom up: each module may use only the ones before it.
#[rustfmt::skip]
const ORDER: &[&str] = &[
    "quat", "frame", "names", "report", "measure", "format", // core
    "gltf", "ktx2",                                          // files
    "anim", "mesh", "qmap", "skin",                          // CPU preparation
    "render", "pack",                                        // products
    "gpu",                                                   // the only wgpu code
    "lab",                                                   // lab equipment
];

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and the test helpers).
fn module_of(path: &Path, src: &Path) -> Option<String> {
    let rel = path.strip_prefix(src).ok()?;
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    ORDER.contains(&name.as_str()).then_some(name)
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The modules a file's code names as `crate::<module>`.
fn used_modules(text: &str) -> Vec<String> {
    let mut used = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ORDER.contains(&name.as_str()) && !used.contains(&name) {
                used.push(name);
            }
        }
    }
    used
}

#[test]
fn no_module_uses_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rank = |m: &str| ORDER.iter().position(|o| *o == m);
    let mut breaks = Vec::new();
    for file in &files {
        let Some(module) = module_of(file, &src) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
        for used in used_modules(&text) {
            if rank(&used) > rank(&module) {
                breaks.push(format!("{} ({module}) uses {used}", file.display()));
            }
        }
    }
    assert!(breaks.is_empty(), "layering broken:\n{}", breaks.join("\n"));
    // The scan itself: a file in `gpu` naming `crate::lab` would be caught.
    assert_eq!(
        used_modules("use crate::lab::x; // crate::pack"),
        vec!["lab"]
    );
    assert!(rank("lab") > rank("gpu") && rank("quat") < rank("mesh"));
}
