//! Every WGSL module parses and validates with naga under the capabilities wgpu grants the device
//! qtangent requests (never `Capabilities::all()`); the names and codes the Rust side uses exist in
//! the modules with the values of the Rust tables.

use std::collections::BTreeSet;

use super::{Stage, BAKE_FLAGS};
use crate::format::SNORM16_W_BIAS;
use crate::format::{S3X4_LEVELS, S3X6_LEVELS};
use crate::Format;

/// What wgpu-core's validator gets for our device: the requested features (none of which adds a
/// shader capability) and a WebGPU-compliant downlevel set.
fn granted_capabilities() -> naga::valid::Capabilities {
    wgpu_naga_bridge::features_to_naga_capabilities(
        crate::gpu::context::REQUESTED_FEATURES,
        wgpu::DownlevelFlags::compliant(),
    )
}

fn parse(stage: Stage) -> naga::Module {
    let source = stage.source();
    naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}: {}", stage.label(), e.emit_to_string(source)))
}

fn validate(name: &str, source: &str) -> Result<naga::valid::ModuleInfo, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), granted_capabilities())
        .validate(&module)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))
}

#[test]
fn every_shader_file_is_built_and_every_module_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    let built: BTreeSet<String> = Stage::ALL
        .iter()
        .flat_map(|s| s.files().iter().map(|(n, _)| n.to_string()))
        .collect();
    assert_eq!(
        on_disk, built,
        "every shaders/*.wgsl must be in a Stage of src/gpu/wgsl.rs"
    );
    for stage in Stage::ALL {
        if let Err(e) = validate(stage.label(), stage.source()) {
            panic!("{e}");
        }
    }
}

#[test]
fn capabilities_are_not_everything() {
    // SHADER_F16 is not requested, so a shader that declares f16 must be refused: the validator
    // is really running with the granted set, and our shaders need no f16.
    let caps = granted_capabilities();
    assert!(
        !caps.contains(naga::valid::Capabilities::SHADER_FLOAT16),
        "{caps:?}"
    );
    let f16_shader = "enable f16;\nfn f(x: f16) -> f16 { return x * 2.0h; }";
    assert!(
        validate("f16 probe", f16_shader).is_err(),
        "an f16 shader validated without SHADER_F16"
    );
}

#[test]
fn entry_points_and_overrides_the_rust_side_names_exist() {
    for stage in Stage::ALL {
        let module = parse(stage);
        for &(name, kind) in stage.entry_points() {
            let ep = module
                .entry_points
                .iter()
                .find(|e| e.name == name)
                .unwrap_or_else(|| panic!("{}: no entry point {name}", stage.label()));
            let want = match kind {
                super::EntryKind::Vertex => naga::ShaderStage::Vertex,
                super::EntryKind::Fragment => naga::ShaderStage::Fragment,
                super::EntryKind::Compute => naga::ShaderStage::Compute,
            };
            assert_eq!(ep.stage, want, "{}: {name}", stage.label());
        }
        let overrides: BTreeSet<&str> = module
            .overrides
            .iter()
            .filter_map(|(_, o)| o.name.as_deref())
            .collect();
        for name in stage.overrides() {
            assert!(
                overrides.contains(name),
                "{}: no override {name} (has {overrides:?})",
                stage.label()
            );
        }
    }
}

/// The value of module-scope constant `name`, as naga parsed it.
fn literal(module: &naga::Module, name: &str) -> naga::Literal {
    let c = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no constant {name}"))
        .1;
    match module.global_expressions[c.init] {
        naga::Expression::Literal(l) => l,
        ref other => panic!("{name} = {other:?}, not a literal"),
    }
}

#[test]
fn generated_constants_have_the_rust_values() {
    let module = parse(Stage::Library);
    // The smallest-three steps must be the very f32 values the CPU decoder uses, or GPU and CPU
    // decodes drift apart: the WGSL parser must read back the bits the header wrote.
    let step = crate::format::smallest3_step;
    for (name, want) in [
        ("S3_STEP_15", step(S3X6_LEVELS)),
        ("S3_STEP_812", step(S3X4_LEVELS)),
        ("S3_HALF_RANGE", std::f32::consts::FRAC_1_SQRT_2),
        ("SNORM16_W_BIAS", SNORM16_W_BIAS),
        // One level finer for each level the object-space bake reads the normal map coarser.
        (
            "QMAP_OBJECT_LOD_BIAS",
            -(crate::qmap::OBJECT_LOD_SHIFT as f32),
        ),
    ] {
        match literal(&module, name) {
            naga::Literal::F32(v) => assert_eq!(v.to_bits(), want.to_bits(), "{name}"),
            other => panic!("{name} = {other:?}"),
        }
    }
    assert_eq!(
        literal(&module, "S3_LEVELS_4B"),
        naga::Literal::U32(S3X4_LEVELS)
    );
    for f in Format::ALL {
        let name = crate::wgsl::ident("FORMAT", f.name());
        assert_eq!(
            literal(&module, &name),
            naga::Literal::U32(f.code()),
            "{name}"
        );
    }
    for (name, v) in BAKE_FLAGS {
        assert_eq!(literal(&module, name), naga::Literal::U32(v), "{name}");
    }
}

#[test]
fn no_shader_file_writes_a_generated_code_by_hand() {
    // The generated names are declared only by the header, and the overrides that select by
    // code are compared only with those names, never with integer literals.
    let selectors = [
        "QTANGENT_FORMAT",
        "MAP_FORMAT",
        "MAP_DECODE",
        "FRAME_SOURCE",
        "SKIN_METHOD",
    ];
    let prefixes = [
        "FORMAT_",
        "MAP_FORMAT_",
        "MAP_DECODE_",
        "FRAME_SOURCE_",
        "SKIN_METHOD_",
        "FLAG_",
    ];
    for stage in Stage::ALL {
        for (file, text) in stage.files() {
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for p in prefixes {
                    assert!(
                        !code.trim_start().starts_with(&format!("const {p}")),
                        "shaders/{file}:{}: declares a generated constant: {line}",
                        n + 1
                    );
                }
                for sel in selectors {
                    let compared = code.split(sel).skip(1).any(|rest| {
                        let rest = rest.trim_start();
                        (rest.starts_with("==") || rest.starts_with("!="))
                            && rest[2..]
                                .trim_start()
                                .starts_with(|c: char| c.is_ascii_digit())
                    });
                    assert!(
                        !compared,
                        "shaders/{file}:{}: compares {sel} with a number: {line}",
                        n + 1
                    );
                }
                let t = code.trim_start();
                assert!(
                    !(t.starts_with("case ")
                        && t[5..].starts_with(|c: char| c.is_ascii_digit())
                        && selectors
                            .iter()
                            .any(|s| text.contains(&format!("switch {s}")))),
                    "shaders/{file}:{}: a numeric case in a switch on a generated code: {line}",
                    n + 1
                );
            }
        }
    }
}
