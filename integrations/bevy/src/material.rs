//! The plugin's material: Bevy's `StandardMaterial` extended with a qtangent vertex decode and a
//! tangent-space quaternion map (`qtangent_pbr.wgsl`).

use bevy::mesh::{Mesh, MeshVertexAttribute, MeshVertexBufferLayoutRef, VertexFormat};
use bevy::pbr::{MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline};
use bevy::prelude::*;
use bevy::render::render_resource::{
    AsBindGroup, RenderPipelineDescriptor, SpecializedMeshPipelineError,
};
use bevy::shader::{ShaderDefVal, ShaderRef};
use qtangent::Format;
use qtangent::qmap::MapDecode;

const SHADER: &str = "embedded://bevy_qtangent/qtangent_pbr.wgsl";

/// The shader location of the `_QTANGENT` attribute (Bevy's mesh pipelines use 0 to 7).
const LOCATION: u32 = 8;

/// The `_QTANGENT` attribute of each format, as the vertex shader fetches it: the format's
/// bytes, in the vertex format of qtangent's table (`f32x4` Float32x4, `f16x4` Float16x4,
/// `snorm16x4` Snorm16x4, `f16x3` and `smallest3x6` Uint32x2 of their 6 bytes padded to 8,
/// `smallest3x4` Uint32).
#[must_use]
pub fn frame_attribute(format: Format) -> MeshVertexAttribute {
    const NAMES: [&str; 6] = [
        "Vertex_QTangent_f32x4",
        "Vertex_QTangent_f16x4",
        "Vertex_QTangent_snorm16x4",
        "Vertex_QTangent_f16x3",
        "Vertex_QTangent_smallest3x6",
        "Vertex_QTangent_smallest3x4",
    ];
    let vertex_format = match format {
        Format::F32x4 => VertexFormat::Float32x4,
        Format::F16x4 => VertexFormat::Float16x4,
        Format::Snorm16x4 => VertexFormat::Snorm16x4,
        Format::F16x3 | Format::Smallest3x6 => VertexFormat::Uint32x2,
        Format::Smallest3x4 => VertexFormat::Uint32,
    };
    let code = format_code(format);
    MeshVertexAttribute::new(
        NAMES[code as usize],
        // "QTANGENT" in ASCII, then the format code: one id per format.
        0x5154_414E_4745_0000 + u64::from(code),
        vertex_format,
    )
}

/// The format's WGSL code (its `FORMAT_*` constant): its position in `Format::ALL`.
pub(crate) fn format_code(format: Format) -> u32 {
    Format::ALL.iter().position(|&f| f == format).unwrap_or(0) as u32
}

/// The map decode's WGSL code (its `MAP_DECODE_*` constant): its position in
/// `MapDecode::ALL`, the generated header's order.
fn decode_code(decode: MapDecode) -> u32 {
    MapDecode::ALL
        .iter()
        .position(|&d| d == decode)
        .unwrap_or(0) as u32
}

/// The WGSL type suffix of a format's fetch (`vec4f`, `vec2u`, `u32`): which
/// `qtangent_frame_*` function decodes it.
fn fetch_suffix(format: Format) -> &'static str {
    match format {
        Format::F32x4 | Format::F16x4 | Format::Snorm16x4 => "VEC4F",
        Format::F16x3 | Format::Smallest3x6 => "VEC2U",
        Format::Smallest3x4 => "U32",
    }
}

/// What the fragment shader writes: the lit picture, or one vector of the pixel's frame as a
/// colour (`0.5 + 0.5 v`, linear; draw it without tonemapping) for checking frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Reflect)]
pub enum DebugView {
    /// Bevy's PBR lighting.
    #[default]
    Lit,
    /// The pixel's normal, world space (after the map).
    Normal,
    /// The pixel's tangent, world space (after the map).
    Tangent,
    /// The pixel's bitangent with the frame's handedness, world space (after the map).
    Bitangent,
}

/// The extension of `StandardMaterial` that draws qtangent frames
/// ([`crate::QTangentMaterial`]).
#[derive(Asset, AsBindGroup, Reflect, Debug, Clone, Default)]
#[bind_group_data(QTangentKey)]
pub struct QTangentExtension {
    /// The tangent-space quaternion map (for a two-layer map, its first layer).
    #[texture(100)]
    #[sampler(101)]
    pub map: Option<Handle<Image>>,
    /// The second layer of a two-layer (`bc5x2`) map: the twist's (z, w).
    #[texture(102)]
    pub twist: Option<Handle<Image>>,
    /// How the shader turns a sample of the map into a quaternion (qtangent's `MapDecode`, the
    /// shader's `MAP_DECODE`); ignored without a map. Not reflected (qtangent's enum is not
    /// `Reflect`); a reflection clone (`reflect_clone`) clones it.
    #[reflect(ignore, clone)]
    pub decode: MapDecode,
    /// The map's twist is stored doubled (an anisotropy direction): halve it.
    pub axial: bool,
    /// The map is read with UV set 1.
    pub uv_b: bool,
    /// What the fragment shader writes.
    pub debug: DebugView,
}

/// The pipeline key of [`QTangentExtension`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QTangentKey {
    decode: Option<u32>,
    axial: bool,
    uv_b: bool,
    debug: DebugView,
}

impl From<&QTangentExtension> for QTangentKey {
    fn from(e: &QTangentExtension) -> Self {
        Self {
            decode: e.map.is_some().then_some(decode_code(e.decode)),
            axial: e.axial,
            uv_b: e.uv_b,
            debug: e.debug,
        }
    }
}

impl MaterialExtension for QTangentExtension {
    fn vertex_shader() -> ShaderRef {
        SHADER.into()
    }

    fn fragment_shader() -> ShaderRef {
        SHADER.into()
    }

    fn specialize(
        _pipeline: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        key: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        // Prepass and shadow pipelines keep Bevy's own shaders: they read positions (and UVs
        // and joints) only.
        if descriptor
            .vertex
            .shader_defs
            .contains(&"PREPASS_PIPELINE".into())
        {
            return Ok(());
        }
        let mut defs: Vec<ShaderDefVal> = Vec::new();
        if let Some(format) = Format::ALL
            .into_iter()
            .find(|&f| layout.0.contains(frame_attribute(f)))
        {
            let extra = layout
                .0
                .get_layout(&[frame_attribute(format).at_shader_location(LOCATION)])?;
            descriptor.vertex.buffers[0]
                .attributes
                .extend(extra.attributes);
            defs.push(ShaderDefVal::UInt(
                "QTANGENT_FORMAT".into(),
                format_code(format),
            ));
            defs.push(format!("QTANGENT_FETCH_{}", fetch_suffix(format)).into());
            // The decoded frame gives every pixel a tangent: Bevy's VertexOutput carries it.
            defs.push("VERTEX_TANGENTS".into());
        }
        let k = key.bind_group_data;
        // A map needs its UV set on the mesh (without it the material draws without the map).
        let uv = if k.uv_b {
            Mesh::ATTRIBUTE_UV_1
        } else {
            Mesh::ATTRIBUTE_UV_0
        };
        if let Some(decode) = k.decode.filter(|_| layout.0.contains(uv)) {
            defs.push("QTANGENT_MAP".into());
            defs.push(ShaderDefVal::UInt("MAP_DECODE".into(), decode));
            if k.axial {
                defs.push("QTANGENT_MAP_AXIAL".into());
            }
            if k.uv_b {
                defs.push("QTANGENT_MAP_UV_B".into());
            }
        }
        match k.debug {
            DebugView::Lit => {}
            DebugView::Normal => defs.push("QTANGENT_DEBUG_NORMAL".into()),
            DebugView::Tangent => defs.push("QTANGENT_DEBUG_TANGENT".into()),
            DebugView::Bitangent => defs.push("QTANGENT_DEBUG_BITANGENT".into()),
        }
        descriptor.vertex.shader_defs.extend(defs.iter().cloned());
        if let Some(fragment) = descriptor.fragment.as_mut() {
            fragment.shader_defs.extend(defs);
        }
        Ok(())
    }
}
