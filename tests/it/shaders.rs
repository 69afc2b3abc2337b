//! Every WGSL file in `shaders/` parses and validates with naga, with the capabilities wgpu
//! grants the device qtangent requests (never `Capabilities::all()`).

use std::collections::BTreeSet;

use qtangent::gpu::{shaders::MODULES, REQUESTED_FEATURES};

/// What wgpu-core's validator gets for our device: the requested features (none of which adds a
/// shader capability) and a WebGPU-compliant downlevel set.
fn granted_capabilities() -> naga::valid::Capabilities {
    wgpu_naga_bridge::features_to_naga_capabilities(
        REQUESTED_FEATURES,
        wgpu::DownlevelFlags::compliant(),
    )
}

fn validate(name: &str, source: &str) -> Result<naga::valid::ModuleInfo, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), granted_capabilities())
        .validate(&module)
        .map_err(|e| format!("{name}: {}", e.emit_to_string(source)))
}

#[test]
fn every_shader_file_is_built_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    let built: BTreeSet<String> = MODULES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        on_disk, built,
        "every shaders/*.wgsl must be listed in src/gpu/shaders.rs MODULES"
    );
    for (name, source) in MODULES {
        if let Err(e) = validate(name, source) {
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
fn shader_constants_match_the_cpu_decoder() {
    // The smallest-three steps are literals in qtangent.wgsl; they must be the very f32 values
    // the CPU decoder uses, or GPU and CPU decodes drift apart.
    let source = qtangent::gpu::shaders::LIBRARY;
    for (name, levels) in [
        ("S3_STEP_15", 1 << 15),
        ("S3_STEP_812", qtangent::encoding::S3X4_LEVELS),
    ] {
        let line = source
            .lines()
            .find(|l| l.starts_with(&format!("const {name}: f32 = ")))
            .unwrap_or_else(|| panic!("{name} not found in qtangent.wgsl"));
        let literal = line
            .split('=')
            .nth(1)
            .and_then(|r| r.split(';').next())
            .map(str::trim)
            .unwrap_or("");
        let value: f32 = literal
            .parse()
            .unwrap_or_else(|e| panic!("{name} = {literal:?}: {e}"));
        let cpu = qtangent::encoding::smallest3_step(levels);
        assert_eq!(
            value.to_bits(),
            cpu.to_bits(),
            "{name}: shader {value:e}, CPU {cpu:e}"
        );
    }
    let half: f32 = source
        .lines()
        .find(|l| l.starts_with("const S3_HALF_RANGE: f32 = "))
        .and_then(|l| l.split('=').nth(1))
        .and_then(|r| r.split(';').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f32::NAN);
    assert_eq!(half.to_bits(), std::f32::consts::FRAC_1_SQRT_2.to_bits());
    assert!(source.contains(&format!(
        "const S3_LEVELS_4B: u32 = {}u;",
        qtangent::encoding::S3X4_LEVELS
    )));
}
