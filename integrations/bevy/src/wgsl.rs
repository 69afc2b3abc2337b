//! qtangent's own WGSL as import modules of Bevy's shader composer (naga_oil): the text of
//! [`qtangent::Wgsl`] after a `#define_import_path` line, never a copy.
//!
//! - `qtangent::frames` ([`qtangent::Wgsl::Library`]): the format codes, `qtangent_frame_vec4f`,
//!   `qtangent_frame_vec2u`, `qtangent_frame_u32` and the frame functions;
//! - `qtangent::qmap` ([`qtangent::Wgsl::Qmap`]): the same, and quaternion-map sampling
//!   (`qmap_quat`, `qmap_halve_twist`, `qmap_apply_tangent`).
//!
//! Composed modules have no pipeline-overridable constants, so each `override NAME: T = D;`
//! becomes a constant set by the shader def `NAME` where the pipeline gives one (`MAP_DECODE`),
//! and `D` where it does not.

use bevy::prelude::*;
use bevy::shader::Shader;

/// Keeps the modules loaded.
#[derive(Resource)]
struct Modules(#[allow(dead_code)] Vec<Handle<Shader>>);

/// The import modules, by import path.
pub(crate) fn modules() -> [(&'static str, String); 2] {
    [
        (
            "qtangent::frames",
            composable("qtangent::frames", qtangent::Wgsl::Library.source()),
        ),
        (
            "qtangent::qmap",
            composable("qtangent::qmap", qtangent::Wgsl::Qmap.source()),
        ),
    ]
}

/// `source` as a naga_oil module at `path`, its overrides turned into shader-def constants.
pub(crate) fn composable(path: &str, source: &str) -> String {
    let mut out = format!("#define_import_path {path}\n");
    for line in source.lines() {
        match override_decl(line) {
            Some((name, ty, default)) => {
                let suffix = if ty == "u32" { "u" } else { "" };
                out.push_str(&format!(
                    "#ifdef {name}\nconst {name}: {ty} = #{{{name}}}{suffix};\n#else\nconst {name}: {ty} = {default};\n#endif\n"
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// `override NAME: TYPE = DEFAULT;` → (NAME, TYPE, DEFAULT), for the u32 and bool overrides
/// qtangent's WGSL declares.
fn override_decl(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("override ")?.strip_suffix(';')?;
    let (name, rest) = rest.split_once(':')?;
    let (ty, default) = rest.split_once('=')?;
    let ty = ty.trim();
    assert!(
        ty == "u32" || ty == "bool",
        "qtangent's WGSL declares `{line}`; the Bevy modules turn u32 and bool overrides into shader defs"
    );
    Some((name.trim(), ty, default.trim()))
}

/// Adds the modules to the app's shaders.
pub(crate) fn register(app: &mut App) {
    let mut shaders = app.world_mut().resource_mut::<Assets<Shader>>();
    let handles = modules()
        .into_iter()
        .map(|(path, text)| shaders.add(Shader::from_wgsl(text, format!("qtangent/{path}.wgsl"))))
        .collect();
    app.insert_resource(Modules(handles));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_override_becomes_a_shader_def_constant() {
        let [_, (_, qmap)] = modules();
        assert!(
            !qmap.contains("\noverride "),
            "an override was left:\n{qmap}"
        );
        assert!(qmap.contains(
            "#ifdef MAP_DECODE\nconst MAP_DECODE: u32 = #{MAP_DECODE}u;\n#else\nconst MAP_DECODE: u32 = MAP_DECODE_DIRECT;\n#endif"
        ));
        assert!(qmap.contains("#ifdef QMAP_ROBUST\nconst QMAP_ROBUST: bool = #{QMAP_ROBUST};"));
    }
}
