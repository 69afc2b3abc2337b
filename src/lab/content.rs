//! Content made in code: the default scene (a copper torus and a glazed sphere under normal
//! maps baked into quaternion maps, on a spun-metal plate whose tangent field only a quaternion
//! map can draw), the plate itself, a checkered ground for animated scenes, the glTF seeds of
//! the fuzz targets, and the glTF corpus `pack` is judged on ([`corpus`]).

#[cfg(feature = "gltf")]
mod corpus;
#[cfg(feature = "gltf")]
mod engine_bc5;
#[cfg(feature = "gltf")]
mod lamp;
#[cfg(feature = "gltf")]
mod ribbed;

use std::f32::consts::{PI, TAU};
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use image::RgbaImage;

use crate::lab::shapes::{self, plate};
use crate::mesh::{self, MeshError, Prepared, Primitive};
use crate::qmap::{self, texel, MapFormat, NormalMap, QuatMap, Raster, TexelKind};
use crate::render::MaterialUniforms;
use crate::render::{MapSource, RenderScene, SceneError, SceneMaterial, SceneMesh, SceneObject};

/// The demo's meshes: a unit cube (4 vertices a face, each face the whole UV square), a UV
/// sphere of radius 1 (64 × 32, seam column repeated), a torus (radii 1 and 0.35, 96 × 48) and
/// two unit quads sharing an edge whose right one's UVs are mirrored (a mirror seam, as on a
/// symmetric character; `prepare` splits its 2 shared vertices).
#[must_use]
pub fn demo_meshes() -> [mesh::Primitive; 4] {
    [
        shapes::cube(),
        shapes::uv_sphere(64, 32),
        Primitive::torus(1.0, 0.35, 96, 48),
        shapes::mirrored_quad_pair(),
    ]
}

/// The embedded default scene: a copper torus with a swirl-and-bumps normal map, a glazed
/// sphere with a hammered normal map (both baked into quaternion maps), on a floor plate of
/// spun metal whose quaternion map is authored in code — a circular tangent field under an
/// anisotropic BRDF, the highlight a normal map cannot make.
///
/// # Errors
/// [`SceneError::Mesh`] if a procedural mesh fails to prepare (fixed data: it does not;
/// `tests/it/render_assets.rs` builds the scene).
pub fn default_scene() -> Result<RenderScene, SceneError> {
    let file = Path::new("default scene");
    let prepare = |p: mesh::Primitive| {
        p.prepare()
            .map_err(|kind| SceneError::Mesh(MeshError::at(file, &p.label, kind)))
    };
    let materials = default_materials();
    let plate = prepare(plate(2.6))?;
    let meshes = vec![
        SceneMesh {
            mesh: prepare(Primitive::torus(0.75, 0.3, 96, 48))?,
            material: 0,
            map: MapSource::Bake { size: 512 },
        },
        SceneMesh {
            mesh: prepare(shapes::uv_sphere(96, 48))?,
            material: 1,
            map: MapSource::Bake { size: 512 },
        },
        SceneMesh {
            map: MapSource::Authored(Box::new(spun_metal_map(&plate, 512))),
            mesh: plate,
            material: 2,
        },
    ];
    let objects = vec![
        SceneObject {
            mesh: 0,
            // Standing up, facing the default camera, turned a little.
            model: Mat4::from_rotation_translation(
                Quat::from_rotation_y(0.5) * Quat::from_rotation_x(1.35),
                Vec3::new(-1.05, 0.1, -0.2),
            ),
            skin: None,
        },
        SceneObject {
            mesh: 1,
            model: Mat4::from_scale_rotation_translation(
                Vec3::splat(0.75),
                Quat::from_rotation_y(-0.6),
                Vec3::new(1.0, 0.0, 0.15),
            ),
            skin: None,
        },
        SceneObject {
            mesh: 2,
            model: Mat4::from_translation(Vec3::new(0.0, -0.8, 0.0)),
            skin: None,
        },
    ];
    Ok(RenderScene {
        name: "default scene".into(),
        meshes,
        materials,
        objects,
        warnings: Vec::new(),
        source: None,
    })
}

/// The default scene's materials: copper with a swirl-and-bumps normal map, glazed ceramic with
/// a hammered one, and spun aluminium with its authored tangent map.
fn default_materials() -> Vec<SceneMaterial> {
    let swirl = NormalMap::default_swirl().to_rgba8();
    let hammered = NormalMap::from_height(256, 3.0, |u, v| {
        // Overlapping dimples: a cosine bump on a jittered grid, periodic in u and v.
        let (gu, gv) = (16.0f32, 8.0f32);
        let (cu, cv) = ((u * gu).fract() - 0.5, (v * gv).fract() - 0.5);
        let r = (cu * cu + cv * cv).sqrt() * 2.0;
        let dimple = if r < 1.0 {
            -(1.0 + (PI * r).cos()) * 0.5
        } else {
            0.0
        };
        dimple + 0.15 * (TAU * (3.0 * u + v)).sin()
    })
    .to_rgba8();
    vec![
        SceneMaterial {
            normal: Some(swirl),
            ..SceneMaterial::plain(
                "copper",
                MaterialUniforms {
                    base_color: Vec4::new(0.95, 0.64, 0.54, 1.0),
                    metallic: 1.0,
                    roughness: 0.32,
                    has_normal_map: 1.0,
                    ..MaterialUniforms::default()
                },
            )
        },
        SceneMaterial {
            normal: Some(hammered),
            ..SceneMaterial::plain(
                "glazed ceramic",
                MaterialUniforms {
                    base_color: Vec4::new(0.10, 0.32, 0.62, 1.0),
                    metallic: 0.0,
                    roughness: 0.22,
                    has_normal_map: 1.0,
                    ..MaterialUniforms::default()
                },
            )
        },
        SceneMaterial {
            tangent_map: Some(Box::new(spun_metal_tangent_map(512))),
            ..SceneMaterial::plain(
                "spun aluminium",
                MaterialUniforms {
                    base_color: Vec4::new(0.91, 0.92, 0.92, 1.0),
                    metallic: 1.0,
                    roughness: 0.28,
                    anisotropy: 0.85,
                    ..MaterialUniforms::default()
                },
            )
        },
    ]
}

/// The spun-metal map: every texel's frame is the plate's own frame turned about its normal so
/// the tangent runs along the circle about the UV centre (a lathe's brushing). A normal map
/// cannot say this — it has no tangent — and vertex tangents would need a vertex per texel.
///
/// The tangent field winds once around the centre, so its quaternions cannot be continuous
/// there (q turns into −q going round); the hemisphere rule leaves one seam ray where
/// neighbours are opposite, and filtering across it still gives ±q — the same rotation —
/// except on a sliver a fraction of a texel wide (`tests/unit/gpu/render.rs` checks the map).
///
/// # Panics
/// If `plate` has no vertices.
#[must_use]
pub(crate) fn spun_metal_map(plate: &Prepared, size: u32) -> QuatMap {
    let f = plate.frames[0];
    let base = texel::quat_from_axes(f.tangent, f.normal.cross(f.tangent), f.normal);
    let h = f.handedness();
    let format = MapFormat::Rgba16Float;
    let mut raster = Raster::empty(size, size, format);
    for y in 0..size {
        for x in 0..size {
            let c = Vec2::new(
                (x as f32 + 0.5) / size as f32 - 0.5,
                (y as f32 + 0.5) / size as f32 - 0.5,
            );
            // The circle's direction at c, as an angle in the frame's (t, cross(n, t)) plane.
            // glTF UVs: the bitangent h·cross(n, t) points towards −v, so a UV direction
            // (du, dv) is (du, −h·dv) there.
            let theta = (-h * c.y).atan2(c.x) + 0.5 * PI;
            let (s, co) = (0.5 * theta).sin_cos();
            let turn = Vec4::new(0.0, 0.0, s, co);
            let mut q = texel::quat_mul(base, turn);
            q /= q.dot(q).sqrt();
            if q.w < 0.0 {
                q = -q;
            }
            let k = (y * size + x) as usize;
            raster.quats[k] = format.quantize(q);
            raster.handedness[k] = if h < 0.0 { -1 } else { 1 };
            raster.kind[k] = TexelKind::Covered;
            raster.triangle[k] = 0;
            raster.coverage[k] = 1;
        }
    }
    raster.triangles = plate.indices.len() / 3;
    qmap::post::finish_levels(&raster, &[], 0, &mut ())
}

/// The spun-metal tangent field as a twist about the normal, φ(uv): the angle, in the tangent
/// plane's (t, b) basis, that turns the tangent (+u) onto the circle about the UV centre. glTF
/// UVs run downwards while b points up the texture, so a UV direction (du, dv) is (du, −dv)
/// there.
#[must_use]
pub(crate) fn spun_metal_twist(uv: Vec2) -> f32 {
    let c = uv - Vec2::splat(0.5);
    (-c.y).atan2(c.x) + 0.5 * PI
}

/// The spun-metal map authored in tangent space ([`crate::qmap::tangent`]): the identity tilt
/// (the plate is flat) with [`spun_metal_twist`], `size`² with mips, rgba32f (stored as the
/// renderer's map format asks). The same circle as [`spun_metal_map`], without a unique-UV
/// requirement and without the handedness plane.
#[must_use]
pub(crate) fn spun_metal_tangent_map(size: u32) -> QuatMap {
    let levels = NormalMap::flat_levels(size, size);
    let twist = crate::lab::fixtures::twist_levels(&levels, &spun_metal_twist);
    qmap::tangent::bake_cpu(
        &levels,
        Some(qmap::tangent::TwistField(&twist)),
        MapFormat::Rgba32Float,
    )
}

/// Side of one checker square of [`RenderScene::add_ground`]'s texture, in texels (8 × 8 squares
/// in a 128² texture).
const CHECKER_TEXELS: u32 = 16;

/// Adds a checkered ground for animated scenes: a square of half-size `half` at height `y`
/// (normal +Y, tangent +X), its texture repeating every `period` units (two squares a
/// period), in a plain rough material of its own. Returns the new object's index.
///
/// # Errors
/// [`SceneError::Empty`] naming the scene when the sizes are not positive and finite.
pub fn add_ground(
    scene: &mut RenderScene,
    half: f32,
    y: f32,
    period: f32,
) -> Result<usize, SceneError> {
    let bad =
        !(half.is_finite() && period.is_finite() && y.is_finite()) || half <= 0.0 || period <= 0.0;
    if bad {
        return Err(SceneError::Empty {
            file: PathBuf::from(&scene.name),
            problem: format!("a ground of half-size {half} at height {y} with period {period}"),
        });
    }
    let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(glam::Vec2::from);
    let ground = mesh::Primitive {
        label: "ground".into(),
        positions: corners
            .iter()
            .map(|c| Vec3::new(c.x * half, y, c.y * half))
            .collect(),
        normals: Some(vec![Vec3::Y; 4]),
        uvs: Some(
            corners
                .iter()
                .map(|&c| (c + 1.0) * (half / period))
                .collect(),
        ),
        indices: vec![0, 2, 1, 0, 3, 2],
        ..Default::default()
    };
    let ground = ground
        .prepare()
        .map_err(|kind| MeshError::at(Path::new(&scene.name), "ground", kind))?;
    scene.materials.push(SceneMaterial {
        base_color: Some(RgbaImage::from_fn(128, 128, |x, y| {
            let [a, b] = [[150, 146, 138, 255], [96, 100, 104, 255]];
            image::Rgba(
                if (x / CHECKER_TEXELS + y / CHECKER_TEXELS).is_multiple_of(2) {
                    a
                } else {
                    b
                },
            )
        })),
        ..SceneMaterial::plain(
            "ground",
            MaterialUniforms {
                base_color: Vec4::ONE,
                metallic: 0.0,
                roughness: 0.8,
                ..MaterialUniforms::default()
            },
        )
    });
    scene.meshes.push(SceneMesh {
        mesh: ground,
        material: scene.materials.len() - 1,
        map: MapSource::None,
    });
    scene.objects.push(SceneObject {
        mesh: scene.meshes.len() - 1,
        model: Mat4::IDENTITY,
        skin: None,
    });
    Ok(scene.objects.len() - 1)
}

/// The attributes of a fuzz seed: POSITION and what else it has.
#[cfg(feature = "gltf")]
struct Attributes<'a> {
    positions: &'a [[f32; 3]],
    normals: Option<&'a [[f32; 3]]>,
    uvs: Option<&'a [[f32; 2]]>,
    tangents: Option<&'a [[f32; 4]]>,
}

/// The glTF seed corpus of the mesh-loader fuzz targets (`xtask/fuzz/`), each a feature of the
/// format the loader must handle, written with the crate's one glTF writer
/// (`lab/src/bin/fuzz_seeds.rs` writes them with its OBJ texts; `cargo xtask fuzz` runs it before
/// fuzzing). Handwritten glTF seeds, buffers embedded as data URIs (and one GLB): a bare triangle, a
/// strip, a fan, and an indexed quad with every attribute the loader reads.
#[cfg(feature = "gltf")]
pub fn gltf_seeds() -> Result<Vec<(&'static str, Vec<u8>)>, crate::pack::WriteError> {
    let tri = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]];
    let quad = [[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]];
    let normals = [[0., 0., 1.]; 4];
    let uvs = [[0., 1.], [1., 1.], [1., 0.], [0., 0.]];
    let tangents = [[1., 0., 0., 1.]; 4];
    let only = |positions| Attributes {
        positions,
        normals: None,
        uvs: None,
        tangents: None,
    };
    let full = Attributes {
        positions: &quad,
        normals: Some(&normals),
        uvs: Some(&uvs),
        tangents: Some(&tangents),
    };
    let gltf = |b: crate::gltf::Builder| {
        b.to_gltf(crate::lab::gltf_json::BufferUri::DataUri)
            .to_string()
            .into_bytes()
    };
    Ok(vec![
        ("triangle.gltf", gltf(seed(4, &only(&tri), None))),
        (
            "strip.gltf",
            gltf(seed(
                5,
                &Attributes {
                    uvs: Some(&uvs),
                    ..only(&quad)
                },
                None,
            )),
        ),
        (
            "fan.gltf",
            gltf(seed(
                6,
                &Attributes {
                    normals: Some(&normals),
                    ..only(&quad)
                },
                Some(&[0, 1, 2, 3]),
            )),
        ),
        (
            "indexed.gltf",
            gltf(seed(4, &full, Some(&[0, 1, 2, 0, 2, 3]))),
        ),
        (
            "indexed.glb",
            seed(4, &full, Some(&[0, 1, 2, 0, 2, 3])).to_glb()?,
        ),
    ])
}

/// A document with one node (translated), one mesh and one primitive of `mode` with a
/// material: the attributes as f32, the indices (if any) as u16.
#[cfg(feature = "gltf")]
fn seed(mode: u32, a: &Attributes<'_>, indices: Option<&[u32]>) -> crate::gltf::Builder {
    let mut b = crate::gltf::Builder::default();
    let vertex = Some(crate::gltf::Target::ArrayBuffer);
    let mut attributes = serde_json::json!({ "POSITION": b.positions(a.positions) });
    if let Some(n) = a.normals {
        attributes["NORMAL"] = serde_json::json!(b.floats(n, vertex));
    }
    if let Some(uv) = a.uvs {
        attributes["TEXCOORD_0"] = serde_json::json!(b.floats(uv, vertex));
    }
    if let Some(t) = a.tangents {
        attributes["TANGENT"] = serde_json::json!(b.floats(t, vertex));
    }
    let mut primitive =
        serde_json::json!({ "attributes": attributes, "mode": mode, "material": 0 });
    if let Some(indices) = indices {
        primitive["indices"] = serde_json::json!(b.indices(indices));
    }
    b.push(
        "meshes",
        serde_json::json!({ "name": "seed", "primitives": [primitive] }),
    );
    b.push(
        "nodes",
        serde_json::json!({ "mesh": 0, "translation": [1, 0, 0] }),
    );
    b.push(
        "materials",
        serde_json::json!({ "pbrMetallicRoughness": { "metallicFactor": 0.5 } }),
    );
    b.json["scene"] = serde_json::json!(0);
    b.json["scenes"] = serde_json::json!([{ "nodes": [0] }]);
    b
}

/// Writes the lab's glTF corpus into `dir` (which must exist): what the real assets lack, so
/// that `pack` and the readers are judged on the shapes real files take (`content/corpus.rs`: a
/// morphing mesh with a weights animation, 27 primitives on 10 shared sets, an untextured torus
/// that carries UVs, a torus instanced three times; `content/ribbed.rs`: ribbed and wrinkled
/// normal maps at 512²; `content/lamp.rs`: a brushed-metal lamp whose anisotropy direction and
/// normal maps both vary), as `morph.gltf`, `shared.gltf`, `untextured-torus.gltf`,
/// `instanced.gltf`, `ribbed.gltf` and `lamp.gltf` with their `.bin`s. With `engine_copies` (GLBs, as `pack`
/// writes them), only those instead: each as `dir/<stem>-bc5-normal-maps.glb`, its normal maps
/// as engines ship them, KTX2 BC5 UNORM with box-filtered mips (`content/engine_bc5.rs`; the
/// readers' tests' yardstick at equal bytes). Returns the paths written.
///
/// # Errors
/// [`LabError::Write`](super::LabError::Write) naming a file that cannot be written;
/// [`LabError::Copy`](super::LabError::Copy) naming a GLB that cannot be copied.
#[cfg(feature = "gltf")]
pub fn corpus(dir: &Path, engine_copies: &[PathBuf]) -> Result<Vec<PathBuf>, super::LabError> {
    if engine_copies.is_empty() {
        return corpus::write(dir);
    }
    engine_copies
        .iter()
        .map(|source| {
            let stem = source
                .file_stem()
                .map_or_else(|| "copy".into(), |s| s.to_string_lossy());
            engine_bc5::write(source, &dir.join(format!("{stem}-bc5-normal-maps.glb")))
        })
        .collect()
}
