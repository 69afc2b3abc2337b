//! glTF 2.0 (`.gltf` with external or data-URI buffers, and `.glb`) through the `gltf` crate.
//!
//! The crate parses and validates the JSON; this file checks what it does not before reading
//! (accessor types and byte ranges, so its readers never see an out-of-bounds or mistyped
//! accessor), converts strips and fans to lists, walks the node tree for world transforms, and
//! reads animations (checking their key times and values, so sampling never sees a NaN or an
//! out-of-order key).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::{Mode, Semantic};

use super::{
    ErrorKind, ImageSource, Instance, Material, Mesh, MeshError, Node, Primitive, Scene, Skin,
    TextureRef,
};
use crate::anim::{Channel, Clip, Interpolation, Property, Transform};

pub(super) fn load_slice(
    name: &Path,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Scene, MeshError> {
    let file_err = |kind| MeshError::file(name, kind);
    // gltf 1.4.1 subtracts the 12-byte header from the GLB length field unchecked.
    if let Some(length) = bytes.strip_prefix(b"glTF").and_then(|b| b.get(4..8)) {
        let length = u32::from_le_bytes([length[0], length[1], length[2], length[3]]);
        if length < 12 {
            return Err(file_err(ErrorKind::Truncated(format!(
                "GLB header says the file is {length} bytes, less than the header itself"
            ))));
        }
    }
    let gltf =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| file_err(gltf_error(e)))?;
    check_animation_indices(gltf.document.as_json())
        .map_err(|(label, kind)| MeshError::at(name, &label, kind))?;
    validate(&gltf.document).map_err(file_err)?;
    let buffers = load_buffers(&gltf, base).map_err(file_err)?;
    let doc = &gltf.document;

    let images = doc
        .images()
        .map(|i| image_source(&i, base, &buffers))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;
    let mut warnings = Vec::new();
    let materials = doc
        .materials()
        .map(|m| material(doc, &m, &images, &mut warnings))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;

    let parents = node_parents(doc).map_err(file_err)?;
    let world = node_world_matrices(doc, &parents).map_err(file_err)?;
    let nodes = read_nodes(doc, &parents, &mut warnings);
    let skins = doc
        .skins()
        .map(|skin| read_skin(&skin, &buffers, &world))
        .collect::<Result<Vec<_>, _>>()
        .map_err(file_err)?;

    let mut instances_of: HashMap<usize, Vec<Instance>> = HashMap::new();
    for n in doc.nodes() {
        if let Some(mesh) = n.mesh() {
            instances_of
                .entry(mesh.index())
                .or_default()
                .push(Instance {
                    node: n.index(),
                    world: world.get(n.index()).copied().unwrap_or(Mat4::IDENTITY),
                    skin: n.skin().map(|s| s.index()),
                });
        }
    }
    let mut meshes = Vec::new();
    let mut budget = MAX_ELEMENTS;
    for mesh in doc.meshes() {
        let mesh_name = mesh
            .name()
            .map_or_else(|| format!("mesh {}", mesh.index()), str::to_owned);
        let mut primitives = Vec::new();
        for prim in mesh.primitives() {
            let label = format!("mesh '{mesh_name}' primitive {}", prim.index());
            let p = read_primitive(&prim, &buffers, label.clone(), &mut budget)
                .and_then(|p| p.validate().map(|()| p))
                .map_err(|kind| MeshError::at(name, &label, kind))?;
            primitives.push(p);
        }
        let instances = instances_of.remove(&mesh.index()).unwrap_or_default();
        meshes.push(Mesh {
            name: mesh_name,
            primitives,
            instances,
        });
    }
    if meshes.is_empty() {
        return Err(file_err(ErrorKind::NoMeshes));
    }
    let mut skipped = Vec::new();
    let animations = doc
        .animations()
        .map(|a| read_animation(name, doc.as_json(), &a, &buffers, &mut budget, &mut skipped))
        .collect::<Result<Vec<_>, _>>()?;
    if !skipped.is_empty() {
        let count = skipped.len();
        let more = count.saturating_sub(3);
        skipped.truncate(3);
        if more > 0 {
            skipped.push(format!("and {more} more"));
        }
        warnings.push(format!(
            "{count} morph target weights animation channel(s) skipped (not supported): {}",
            skipped.join(", ")
        ));
    }
    Ok(Scene {
        source: name.to_path_buf(),
        meshes,
        materials,
        skins,
        nodes,
        animations,
        warnings,
    })
}

fn gltf_error(e: gltf::Error) -> ErrorKind {
    match e {
        gltf::Error::Io(error) => ErrorKind::Io {
            what: "file".into(),
            error,
        },
        gltf::Error::Deserialize(e) if e.is_eof() => ErrorKind::Truncated(e.to_string()),
        gltf::Error::Deserialize(e) => ErrorKind::InvalidJson(e.to_string()),
        gltf::Error::Binary(e) => ErrorKind::Truncated(format!("GLB: {e}")),
        gltf::Error::BufferLength {
            buffer,
            expected,
            actual,
        } => ErrorKind::ShortBuffer {
            buffer,
            expected,
            actual,
        },
        other => ErrorKind::Gltf(other.to_string()),
    }
}

/// The gltf crate's validation (every index in range, required fields present, which its API
/// relies on), except that a POSITION accessor without `min`/`max` is accepted: the spec wants
/// them, but many exporters leave them out and nothing here needs them.
fn validate(doc: &gltf::Document) -> Result<(), ErrorKind> {
    use gltf::json::validation::{Error, Validate};
    let root = doc.as_json();
    // gltf-json 1.4.1's POSITION min/max hook indexes `accessors` before the index checks run,
    // so an out-of-range POSITION index would panic inside it: check those first.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (semantic, index) in &prim.attributes {
                if index.value() >= root.accessors.len() {
                    return Err(ErrorKind::InvalidGltf(format!(
                        "meshes[{m}].primitives[{p}].attributes.{}: accessor {} does not exist ({} accessors)",
                        match semantic {
                            gltf::json::validation::Checked::Valid(s) => s.to_string(),
                            gltf::json::validation::Checked::Invalid => "?".into(),
                        },
                        index.value(),
                        root.accessors.len()
                    )));
                }
            }
        }
    }
    // gltf 1.4.1's Image::source unwraps mimeType (with bufferView) and uri (without), which
    // its validation does not require.
    for (i, image) in root.images.iter().enumerate() {
        let problem = match (&image.buffer_view, &image.mime_type, &image.uri) {
            (Some(_), None, _) => "has a bufferView but no mimeType",
            (None, _, None) => "has neither a uri nor a bufferView",
            _ => continue,
        };
        return Err(ErrorKind::InvalidGltf(format!("images[{i}] {problem}")));
    }
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        let path = path().as_str().to_owned();
        let bounds = path.ends_with(".min") || path.ends_with(".max");
        if !(bounds && error == Error::Missing) {
            errors.push(format!("{path}: {error}"));
        }
    });
    if errors.is_empty() {
        return Ok(());
    }
    let more = errors.len().saturating_sub(3);
    errors.truncate(3);
    if more > 0 {
        errors.push(format!("and {more} more"));
    }
    Err(ErrorKind::InvalidGltf(errors.join("; ")))
}

/// Reads every buffer. External files are resolved first, the way the gltf crate will (`file:`
/// URIs as paths, relative URIs percent-decoded against `base`), and must be regular files, so
/// a missing one is named, and a device or FIFO (`/dev/zero`) is refused rather than read
/// forever. Other schemes are refused.
fn load_buffers(
    gltf: &gltf::Gltf,
    base: Option<&Path>,
) -> Result<Vec<gltf::buffer::Data>, ErrorKind> {
    for buffer in gltf.document.buffers() {
        let index = buffer.index();
        match buffer.source() {
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {}
            gltf::buffer::Source::Uri(uri) => {
                let Some(base) = base else {
                    return Err(ErrorKind::Gltf(format!(
                        "buffer {index} refers to the external file '{uri}', but the data came from memory"
                    )));
                };
                let path = if let Some(rest) = uri
                    .strip_prefix("file://")
                    .or_else(|| uri.strip_prefix("file:"))
                {
                    PathBuf::from(rest)
                } else if uri.contains(':') {
                    return Err(ErrorKind::Gltf(format!(
                        "buffer {index} URI '{uri}' has a scheme other than data: or file:"
                    )));
                } else {
                    let decoded = urlencoding::decode(uri).map_err(|e| {
                        ErrorKind::InvalidGltf(format!("buffer {index} URI '{uri}': {e}"))
                    })?;
                    base.join(&*decoded)
                };
                if !path.is_file() {
                    return Err(ErrorKind::MissingBuffer {
                        buffer: index,
                        uri: uri.to_owned(),
                        path: path.display().to_string(),
                    });
                }
            }
            gltf::buffer::Source::Bin if gltf.blob.is_none() => {
                return Err(ErrorKind::InvalidGltf(format!(
                    "buffer {index} refers to the GLB binary chunk, but the file has none"
                )));
            }
            gltf::buffer::Source::Bin => {}
        }
    }
    gltf::import_buffers(&gltf.document, base, gltf.blob.clone()).map_err(|e| match e {
        gltf::Error::Io(error) => ErrorKind::Io {
            what: "a buffer".into(),
            error,
        },
        other => gltf_error(other),
    })
}

/// What an attribute's accessor may be.
struct Expect {
    dims: Dimensions,
    types: &'static [DataType],
    describe: &'static str,
}

const POSITION: Expect = Expect {
    dims: Dimensions::Vec3,
    types: &[DataType::F32],
    describe: "VEC3 float",
};
const NORMAL: Expect = POSITION;
const TANGENT: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::F32],
    describe: "VEC4 float",
};
const TEXCOORD: Expect = Expect {
    dims: Dimensions::Vec2,
    types: &[DataType::F32, DataType::U8, DataType::U16],
    describe: "VEC2 float, unsigned byte or unsigned short",
};
const JOINTS: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::U8, DataType::U16],
    describe: "VEC4 unsigned byte or unsigned short",
};
const WEIGHTS: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[DataType::F32, DataType::U8, DataType::U16],
    describe: "VEC4 float, unsigned byte or unsigned short",
};
const INDICES: Expect = Expect {
    dims: Dimensions::Scalar,
    types: &[DataType::U8, DataType::U16, DataType::U32],
    describe: "SCALAR unsigned byte, short or int",
};
const MAT4: Expect = Expect {
    dims: Dimensions::Mat4,
    types: &[DataType::F32],
    describe: "MAT4 float",
};

/// Checks an accessor's type and that every byte it (and its sparse part) reads is inside its
/// buffer view and buffer, so the gltf crate's readers neither panic nor return `None`.
fn check_accessor(
    acc: &gltf::Accessor<'_>,
    attribute: &str,
    expect: &Expect,
    buffers: &[gltf::buffer::Data],
) -> Result<(), ErrorKind> {
    let oob = |detail: String| ErrorKind::AccessorOutOfBounds {
        attribute: attribute.to_owned(),
        accessor: acc.index(),
        detail,
    };
    if acc.dimensions() != expect.dims || !expect.types.contains(&acc.data_type()) {
        return Err(ErrorKind::AccessorType {
            attribute: attribute.to_owned(),
            accessor: acc.index(),
            found: format!("{:?} {:?}", acc.dimensions(), acc.data_type()),
            expected: expect.describe,
        });
    }
    if acc.count() == 0 {
        return Err(oob("count is 0".into()));
    }
    let elem = acc.size();
    let Some(view) = acc.view() else {
        if acc.sparse().is_none() {
            return Err(oob(
                "it has no buffer view (all-zero accessors are not supported)".into(),
            ));
        }
        return check_sparse(acc, elem, buffers, &oob);
    };
    check_range(&view, acc.offset(), acc.count(), elem, buffers).map_err(oob)?;
    check_sparse(acc, elem, buffers, &oob)
}

fn check_sparse(
    acc: &gltf::Accessor<'_>,
    elem: usize,
    buffers: &[gltf::buffer::Data],
    oob: &dyn Fn(String) -> ErrorKind,
) -> Result<(), ErrorKind> {
    let Some(sparse) = acc.sparse() else {
        return Ok(());
    };
    if sparse.count() == 0 {
        return Err(oob("sparse count is 0".into()));
    }
    let indices = sparse.indices();
    check_range(
        &indices.view(),
        indices.offset(),
        sparse.count(),
        indices.index_type().size(),
        buffers,
    )
    .map_err(|d| oob(format!("sparse indices: {d}")))?;
    let values = sparse.values();
    check_range(
        &values.view(),
        values.offset(),
        sparse.count(),
        elem,
        buffers,
    )
    .map_err(|d| oob(format!("sparse values: {d}")))
}

/// `count` elements of `elem` bytes at `offset` into `view` (with its stride) must fit the view,
/// and the view must fit its buffer.
fn check_range(
    view: &gltf::buffer::View<'_>,
    offset: usize,
    count: usize,
    elem: usize,
    buffers: &[gltf::buffer::Data],
) -> Result<(), String> {
    let stride = view.stride().unwrap_or(elem);
    if stride < elem {
        return Err(format!(
            "buffer view {} stride {stride} is less than the element size {elem}",
            view.index()
        ));
    }
    let end = stride
        .checked_mul(count - 1)
        .and_then(|x| x.checked_add(elem))
        .and_then(|x| x.checked_add(offset))
        .ok_or_else(|| "byte range overflows".to_owned())?;
    if end > view.length() {
        return Err(format!(
            "{count} elements from byte {offset} need {end} bytes, buffer view {} has {}",
            view.index(),
            view.length()
        ));
    }
    let buffer = view.buffer().index();
    let have = buffers.get(buffer).map_or(0, |b| b.len());
    let view_end = view
        .offset()
        .checked_add(view.length())
        .ok_or("byte range overflows")?;
    if view_end > have {
        return Err(format!(
            "buffer view {} ends at byte {view_end}, buffer {buffer} has {have}",
            view.index()
        ));
    }
    Ok(())
}

/// Most accessor elements one file may make the loader read (summed over every primitive, as
/// primitives may share accessors): 2²⁷, about 1.5 GB of f32 triples. A small file can name a
/// huge sparse accessor or reuse one large accessor in many primitives; this keeps it bounded.
pub(super) const MAX_ELEMENTS: usize = 1 << 27;

fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    label: String,
    budget: &mut usize,
) -> Result<Primitive, ErrorKind> {
    let elements = prim
        .attributes()
        .map(|(_, a)| a.count())
        .chain(prim.indices().map(|a| a.count()))
        .fold(0usize, usize::saturating_add);
    *budget = budget.checked_sub(elements).ok_or_else(|| {
        ErrorKind::TooLarge(format!(
            "the file's primitives read more than {MAX_ELEMENTS} accessor elements in all"
        ))
    })?;
    let mode = prim.mode();
    if matches!(
        mode,
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
    ) {
        return Err(ErrorKind::UnsupportedMode(format!("{mode:?}")));
    }
    let checked = |semantic: Semantic, name: &str, expect: &Expect| -> Result<bool, ErrorKind> {
        match prim.get(&semantic) {
            Some(acc) => check_accessor(&acc, name, expect, buffers).map(|()| true),
            None => Ok(false),
        }
    };
    if !checked(Semantic::Positions, "POSITION", &POSITION)? {
        return Err(ErrorKind::NoPositions);
    }
    checked(Semantic::Normals, "NORMAL", &NORMAL)?;
    checked(Semantic::Tangents, "TANGENT", &TANGENT)?;
    checked(Semantic::TexCoords(0), "TEXCOORD_0", &TEXCOORD)?;
    let mut joint_sets = 0;
    while checked(
        Semantic::Joints(joint_sets),
        &format!("JOINTS_{joint_sets}"),
        &JOINTS,
    )? {
        joint_sets += 1;
    }
    let mut weight_sets = 0;
    while checked(
        Semantic::Weights(weight_sets),
        &format!("WEIGHTS_{weight_sets}"),
        &WEIGHTS,
    )? {
        weight_sets += 1;
    }
    if let Some(acc) = prim.indices() {
        check_accessor(&acc, "indices", &INDICES, buffers)?;
    }

    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    // The checks above make every read below Some; a None would be a gltf crate change.
    let missing = |what: &str| ErrorKind::Gltf(format!("the gltf crate could not read {what}"));
    let positions: Vec<Vec3> = reader
        .read_positions()
        .ok_or_else(|| missing("POSITION"))?
        .map(Vec3::from)
        .collect();
    // Absent attributes read as None; present ones were checked above, so they read fully.
    let normals = reader.read_normals().map(|r| r.map(Vec3::from).collect());
    let tangents = reader.read_tangents().map(|r| r.map(Vec4::from).collect());
    let uvs = reader
        .read_tex_coords(0)
        .map(|r| r.into_f32().map(Vec2::from).collect());
    let joints = (0..joint_sets)
        .map(|s| {
            Ok(reader
                .read_joints(s)
                .ok_or_else(|| missing("JOINTS"))?
                .into_u16()
                .collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let weights = (0..weight_sets)
        .map(|s| {
            Ok(reader
                .read_weights(s)
                .ok_or_else(|| missing("WEIGHTS"))?
                .into_f32()
                .collect())
        })
        .collect::<Result<Vec<_>, ErrorKind>>()?;
    let list: Vec<u32> = match reader.read_indices() {
        Some(read) => read.into_u32().collect(),
        None => (0..u32::try_from(positions.len()).unwrap_or(u32::MAX)).collect(),
    };
    let indices = match mode {
        Mode::TriangleStrip => strip_to_list(&list),
        Mode::TriangleFan => fan_to_list(&list),
        _ => list,
    };
    Ok(Primitive {
        label,
        positions,
        normals,
        tangents,
        uvs,
        smoothing_ids: None,
        joints,
        weights,
        indices,
        material: prim.material().index(),
    })
}

/// glTF 2.0 §3.7.2.1: strip triangle i is (v_i, v_{i+1+i%2}, v_{i+2-i%2}), keeping one winding.
fn strip_to_list(strip: &[u32]) -> Vec<u32> {
    (0..strip.len().saturating_sub(2))
        .flat_map(|i| [strip[i], strip[i + 1 + i % 2], strip[i + 2 - i % 2]])
        .collect()
}

/// glTF 2.0 §3.7.2.1: fan triangle i is (v_{i+1}, v_{i+2}, v_0).
fn fan_to_list(fan: &[u32]) -> Vec<u32> {
    (0..fan.len().saturating_sub(2))
        .flat_map(|i| [fan[i + 1], fan[i + 2], fan[0]])
        .collect()
}

/// The parent of every node (validation has checked every `children` index). A node listed as
/// the child of two nodes is an error.
fn node_parents(doc: &gltf::Document) -> Result<Vec<Option<usize>>, ErrorKind> {
    let mut parent = vec![None; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            if let Some(p) = parent[c.index()].replace(n.index()) {
                return Err(ErrorKind::InvalidGltf(format!(
                    "node {} has two parents (nodes {p} and {})",
                    c.index(),
                    n.index()
                )));
            }
        }
    }
    Ok(parent)
}

/// Node-to-world matrix of every node (glTF nodes form a forest: each has at most one parent,
/// and no cycles; `parent` is [`node_parents`]). Matrices that are not finite are an error, and
/// so is a cycle.
fn node_world_matrices(
    doc: &gltf::Document,
    parent: &[Option<usize>],
) -> Result<Vec<Mat4>, ErrorKind> {
    let count = doc.nodes().len();
    let mut world: Vec<Option<Mat4>> = vec![None; count];
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> = doc
        .nodes()
        .filter(|n| parent.get(n.index()).is_some_and(Option::is_none))
        .map(|n| (n, Mat4::IDENTITY))
        .collect();
    while let Some((node, parent_world)) = stack.pop() {
        let m = parent_world * Mat4::from_cols_array_2d(&node.transform().matrix());
        if !m.is_finite() {
            return Err(ErrorKind::InvalidGltf(format!(
                "node {}: its transform (with its parents') is not finite",
                node.index()
            )));
        }
        world[node.index()] = Some(m);
        stack.extend(node.children().map(|c| (c, m)));
    }
    // With one parent at most, a node no root reaches hangs below a cycle.
    if let Some(n) = world.iter().position(Option::is_none) {
        return Err(ErrorKind::InvalidGltf(format!(
            "node {n} is part of (or below) a cycle"
        )));
    }
    Ok(world
        .into_iter()
        .map(|m| m.unwrap_or(Mat4::IDENTITY))
        .collect())
}

/// Every node's name, parent and local transform. Run after [`node_world_matrices`], which has
/// rejected non-finite transforms. A `matrix` is decomposed; one that translation, rotation and
/// scale cannot reproduce (shear, a projective row, a zero-length axis) gets a warning.
fn read_nodes(
    doc: &gltf::Document,
    parents: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Vec<Node> {
    doc.nodes()
        .map(|n| {
            let i = n.index();
            let (t, r, s) = n.transform().decomposed();
            let mut local = Transform {
                translation: Vec3::from(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from(s),
            };
            if let gltf::scene::Transform::Matrix { matrix } = n.transform() {
                let m = Mat4::from_cols_array_2d(&matrix);
                if !local.rotation.is_finite() || !local.scale.is_finite() {
                    // The gltf crate divides each axis by its length: a zero axis gives NaN.
                    local.rotation = Quat::IDENTITY;
                    local.scale = local.scale.map(|x| if x.is_finite() { x } else { 0.0 });
                    warnings.push(format!(
                        "node {i}: its matrix has a zero-length axis, so its rotation is unknown; \
                         identity used for animation"
                    ));
                } else {
                    // Decomposing rounds each element by a few ulps of the largest; 1e-4 of
                    // it is far above that and far below any shear worth mentioning.
                    let linear = m.to_cols_array()[..12]
                        .iter()
                        .fold(0.0f32, |a, x| a.max(x.abs()));
                    if !local
                        .to_mat4()
                        .abs_diff_eq(m, 1e-4 * linear.max(f32::MIN_POSITIVE))
                    {
                        warnings.push(format!(
                            "node {i}: its matrix is not translation · rotation · scale (shear \
                             or a projective row); animation uses the nearest decomposition"
                        ));
                    }
                }
            }
            Node {
                name: n.name().map_or_else(|| format!("node {i}"), str::to_owned),
                parent: parents.get(i).copied().flatten(),
                local,
            }
        })
        .collect()
}

const TIMES: Expect = Expect {
    dims: Dimensions::Scalar,
    types: &[DataType::F32],
    describe: "SCALAR float",
};
const VEC3_OUTPUT: Expect = POSITION;
const ROTATION_OUTPUT: Expect = Expect {
    dims: Dimensions::Vec4,
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
    describe: "VEC4 float or normalized byte or short",
};

/// Animation indices, checked before the gltf crate's validation: a channel's target node and
/// path (which that validation leaves unchecked and the crate's accessors unwrap), and the
/// sampler and accessor indices (which it reports by JSON path only), so the error names the
/// animation and channel: `(animation 'Walk' channel 3, problem)`.
fn check_animation_indices(root: &gltf::json::Root) -> Result<(), (String, ErrorKind)> {
    use gltf::json::validation::Checked;
    for (a, anim) in root.animations.iter().enumerate() {
        let name = anim
            .name
            .clone()
            .unwrap_or_else(|| format!("animation {a}"));
        for (c, channel) in anim.channels.iter().enumerate() {
            let invalid = |what: String| {
                Err((
                    format!("animation '{name}' channel {c}"),
                    ErrorKind::InvalidGltf(what),
                ))
            };
            let node = channel.target.node.value();
            if node >= root.nodes.len() {
                return invalid(format!(
                    "target node {node} does not exist ({} nodes)",
                    root.nodes.len()
                ));
            }
            if matches!(channel.target.path, Checked::Invalid) {
                return invalid(
                    "target path is not translation, rotation, scale or weights".into(),
                );
            }
            let s = channel.sampler.value();
            let Some(sampler) = anim.samplers.get(s) else {
                return invalid(format!(
                    "sampler {s} does not exist ({} samplers)",
                    anim.samplers.len()
                ));
            };
            for (what, acc) in [("input", sampler.input), ("output", sampler.output)] {
                let acc = acc.value();
                if acc >= root.accessors.len() {
                    return invalid(format!(
                        "sampler {s} {what} accessor {acc} does not exist ({} accessors)",
                        root.accessors.len()
                    ));
                }
            }
            if matches!(sampler.interpolation, Checked::Invalid) {
                return invalid(format!(
                    "sampler {s} interpolation is not LINEAR, STEP or CUBICSPLINE"
                ));
            }
        }
    }
    Ok(())
}

/// Reads one animation ([`check_animation_indices`] and validation have run). The accessors
/// are checked before the gltf crate reads them (type, byte range), then key times and values.
/// Morph target `weights` channels are not read; their labels go to `skipped`.
fn read_animation(
    file: &Path,
    root: &gltf::json::Root,
    anim: &gltf::Animation<'_>,
    buffers: &[gltf::buffer::Data],
    budget: &mut usize,
    skipped: &mut Vec<String>,
) -> Result<Clip, MeshError> {
    use gltf::json::validation::Checked;
    let name = anim
        .name()
        .map_or_else(|| format!("animation {}", anim.index()), str::to_owned);
    let json_channels = root
        .animations
        .get(anim.index())
        .map_or(&[][..], |a| &a.channels[..]);
    let mut channels = Vec::new();
    for (c, channel) in anim.channels().enumerate() {
        let label = format!("animation '{name}' channel {c}");
        let err = |kind| MeshError::at(file, &label, kind);
        // The gltf crate's Target::node and ::property unwrap what its validation leaves
        // unchecked, so the target is read from the JSON ([`check_animation_indices`] has
        // checked it).
        let target = &json_channels
            .get(c)
            .ok_or_else(|| {
                err(ErrorKind::Gltf(
                    "the gltf crate lists a channel its JSON does not have".into(),
                ))
            })?
            .target;
        let node = target.node.value();
        let property = match target.path {
            Checked::Valid(gltf::json::animation::Property::Translation) => Property::Translation,
            Checked::Valid(gltf::json::animation::Property::Rotation) => Property::Rotation,
            Checked::Valid(gltf::json::animation::Property::Scale) => Property::Scale,
            Checked::Valid(gltf::json::animation::Property::MorphTargetWeights) => {
                skipped.push(label);
                continue;
            }
            Checked::Invalid => {
                return Err(err(ErrorKind::Gltf(
                    "an invalid target path passed the checks".into(),
                )))
            }
        };
        let channel = read_channel(&channel, node, property, buffers, budget).map_err(err)?;
        channels.push(channel);
    }
    let duration = channels
        .iter()
        .filter_map(|c| c.times.last().copied())
        .fold(0.0, f32::max);
    Ok(Clip {
        name,
        duration,
        channels,
    })
}

fn read_skin(
    skin: &gltf::Skin<'_>,
    buffers: &[gltf::buffer::Data],
    world: &[Mat4],
) -> Result<Skin, ErrorKind> {
    let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
    let inverse_bind = match skin.inverse_bind_matrices() {
        Some(acc) => {
            check_accessor(&acc, "inverseBindMatrices", &MAT4, buffers)?;
            if acc.count() != joints.len() {
                return Err(ErrorKind::CountMismatch {
                    attribute: format!("skin {} inverseBindMatrices", skin.index()),
                    count: acc.count(),
                    positions: joints.len(),
                });
            }
            let reader = skin.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
            let m: Vec<Mat4> = reader
                .read_inverse_bind_matrices()
                .ok_or_else(|| {
                    ErrorKind::Gltf("the gltf crate could not read inverseBindMatrices".into())
                })?
                .map(|m| Mat4::from_cols_array_2d(&m))
                .collect();
            for (i, m) in m.iter().enumerate() {
                if let Some(&value) = m.to_cols_array().iter().find(|x| !x.is_finite()) {
                    return Err(ErrorKind::NonFinite {
                        attribute: format!("skin {} inverseBindMatrices", skin.index()),
                        vertex: i,
                        value,
                    });
                }
            }
            m
        }
        None => vec![Mat4::IDENTITY; joints.len()],
    };
    Ok(Skin {
        name: skin
            .name()
            .map_or_else(|| format!("skin {}", skin.index()), str::to_owned),
        joint_world: joints
            .iter()
            .map(|j| world.get(*j).copied().unwrap_or(Mat4::IDENTITY))
            .collect(),
        joints,
        inverse_bind,
    })
}

/// Where image `image`'s bytes are: a file, a data URI, or a slice of a buffer (shared).
fn image_source(
    image: &gltf::Image<'_>,
    base: Option<&Path>,
    buffers: &[gltf::buffer::Data],
) -> Result<ImageSource, ErrorKind> {
    Ok(match image.source() {
        gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
            ImageSource::DataUri(uri.into())
        }
        gltf::image::Source::Uri { uri, .. } => {
            ImageSource::File(base.map_or_else(|| uri.into(), |b| b.join(uri)))
        }
        gltf::image::Source::View { view, mime_type } => {
            let data = buffers
                .get(view.buffer().index())
                .map_or(&[][..], |d| &d.0[..]);
            let bytes = view
                .offset()
                .checked_add(view.length())
                .and_then(|end| data.get(view.offset()..end))
                .ok_or_else(|| ErrorKind::AccessorOutOfBounds {
                    attribute: format!("image {}", image.index()),
                    accessor: view.index(),
                    detail: "its buffer view is outside the buffer".into(),
                })?;
            ImageSource::Embedded {
                mime: mime_type.to_owned(),
                bytes: bytes.into(),
            }
        }
    })
}

/// The image a texture samples: its `KHR_texture_basisu` source where it has one (a KTX2
/// image), else its own.
fn texture_image(t: &gltf::Texture<'_>, images: &[ImageSource]) -> Result<ImageSource, String> {
    let basisu = t
        .extension_value("KHR_texture_basisu")
        .and_then(|v| v.get("source"))
        .and_then(gltf::json::Value::as_u64);
    let index = match (basisu, t.source()) {
        (Some(i), _) => usize::try_from(i).unwrap_or(usize::MAX),
        (None, Some(image)) => image.index(),
        (None, None) => return Err(format!("texture {} has no image", t.index())),
    };
    images.get(index).cloned().ok_or_else(|| {
        format!(
            "texture {} names image {index}, which does not exist",
            t.index()
        )
    })
}

/// Reads a material's KHR_materials_anisotropy (raw JSON: the gltf crate has no type for it).
/// Out-of-range or non-numeric values are errors naming the material; a texture transform is
/// warned about and ignored.
fn anisotropy(
    doc: &gltf::Document,
    ext: &gltf::json::Value,
    name: &str,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<crate::mesh::Anisotropy, ErrorKind> {
    let bad = |what: String| {
        ErrorKind::InvalidGltf(format!(
            "material '{name}': KHR_materials_anisotropy: {what}"
        ))
    };
    let number = |key: &str, default: f32| -> Result<f32, ErrorKind> {
        match ext.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .map(|x| x as f32)
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(format!("{key} is {v}, not a finite number"))),
        }
    };
    let strength = number("anisotropyStrength", 0.0)?;
    if !(0.0..=1.0).contains(&strength) {
        return Err(bad(format!(
            "anisotropyStrength is {strength}, outside [0, 1]"
        )));
    }
    let rotation = number("anisotropyRotation", 0.0)?;
    let texture = match ext.get("anisotropyTexture") {
        None => None,
        Some(info) => {
            let index = info
                .get("index")
                .and_then(gltf::json::Value::as_u64)
                .ok_or_else(|| bad("anisotropyTexture has no index".into()))?;
            let t = doc
                .textures()
                .nth(usize::try_from(index).unwrap_or(usize::MAX))
                .ok_or_else(|| {
                    bad(format!(
                        "anisotropyTexture names texture {index}, which does not exist"
                    ))
                })?;
            let tex_coord = match info.get("texCoord") {
                None => 0,
                Some(v) => v
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .ok_or_else(|| bad(format!("anisotropyTexture.texCoord is {v}")))?,
            };
            if info
                .get("extensions")
                .and_then(|e| e.get("KHR_texture_transform"))
                .is_some()
            {
                warnings.push(format!(
                    "material '{name}': the anisotropy texture's KHR_texture_transform is not supported; drawn untransformed"
                ));
            }
            Some(TextureRef {
                image: texture_image(&t, images).map_err(bad)?,
                tex_coord,
                scale: 1.0,
            })
        }
    };
    Ok(crate::mesh::Anisotropy {
        strength,
        rotation,
        texture,
    })
}

fn material(
    doc: &gltf::Document,
    m: &gltf::Material<'_>,
    images: &[ImageSource],
    warnings: &mut Vec<String>,
) -> Result<Material, ErrorKind> {
    let pbr = m.pbr_metallic_roughness();
    let name = m.name().map_or_else(
        || {
            m.index()
                .map_or_else(|| "default material".into(), |i| format!("material {i}"))
        },
        str::to_owned,
    );
    let texture =
        |t: gltf::Texture<'_>, tex_coord: u32, scale: f32| -> Result<TextureRef, ErrorKind> {
            Ok(TextureRef {
                image: texture_image(&t, images)
                    .map_err(|e| ErrorKind::InvalidGltf(format!("material '{name}': {e}")))?,
                tex_coord,
                scale,
            })
        };
    let anisotropy = m
        .extension_value("KHR_materials_anisotropy")
        .map(|ext| anisotropy(doc, ext, &name, images, warnings))
        .transpose()?;
    Ok(Material {
        base_color: Vec4::from(pbr.base_color_factor()),
        base_color_texture: pbr
            .base_color_texture()
            .map(|i| texture(i.texture(), i.tex_coord(), 1.0))
            .transpose()?,
        normal_texture: m
            .normal_texture()
            .map(|n| texture(n.texture(), n.tex_coord(), n.scale()))
            .transpose()?,
        metallic_roughness_texture: pbr
            .metallic_roughness_texture()
            .map(|i| texture(i.texture(), i.tex_coord(), 1.0))
            .transpose()?,
        metallic: pbr.metallic_factor(),
        roughness: pbr.roughness_factor(),
        anisotropy,
        name,
    })
}

/// Reads and checks one channel's sampler (target already checked).
fn read_channel(
    channel: &gltf::animation::Channel<'_>,
    node: usize,
    property: Property,
    buffers: &[gltf::buffer::Data],
    budget: &mut usize,
) -> Result<Channel, ErrorKind> {
    let sampler = channel.sampler();
    let (interpolation, per_key, interpolation_name) = match sampler.interpolation() {
        gltf::animation::Interpolation::Step => (Interpolation::Step, 1, "STEP"),
        gltf::animation::Interpolation::Linear => (Interpolation::Linear, 1, "LINEAR"),
        gltf::animation::Interpolation::CubicSpline => {
            (Interpolation::CubicSpline, 3, "CUBICSPLINE")
        }
    };
    let (input, output) = (sampler.input(), sampler.output());
    let s = sampler.index();
    check_accessor(&input, &format!("sampler {s} input"), &TIMES, buffers)?;
    let expect = match property {
        Property::Rotation => &ROTATION_OUTPUT,
        Property::Translation | Property::Scale => &VEC3_OUTPUT,
    };
    check_accessor(&output, &format!("sampler {s} output"), expect, buffers)?;
    if output.data_type() != DataType::F32 && !output.normalized() {
        return Err(ErrorKind::AccessorType {
            attribute: format!("sampler {s} output"),
            accessor: output.index(),
            found: format!(
                "{:?} {:?} (not normalized)",
                output.dimensions(),
                output.data_type()
            ),
            expected: ROTATION_OUTPUT.describe,
        });
    }
    let (inputs, outputs) = (input.count(), output.count());
    let expected = inputs.saturating_mul(per_key);
    if outputs != expected {
        return Err(ErrorKind::KeyCountMismatch {
            inputs,
            outputs,
            expected,
            interpolation: interpolation_name,
        });
    }
    *budget = budget
        .checked_sub(inputs.saturating_add(outputs))
        .ok_or_else(|| {
            ErrorKind::TooLarge(format!(
                "the file's primitives and animations read more than {MAX_ELEMENTS} accessor \
                 elements in all"
            ))
        })?;

    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    // The checks above make every read below Some; a None would be a gltf crate change.
    let missing = |what: &str| ErrorKind::Gltf(format!("the gltf crate could not read {what}"));
    let times: Vec<f32> = reader
        .read_inputs()
        .ok_or_else(|| missing("the sampler input"))?
        .collect();
    check_times(&times)?;
    let mut values: Vec<Vec4> = match reader
        .read_outputs()
        .ok_or_else(|| missing("the sampler output"))?
    {
        gltf::animation::util::ReadOutputs::Translations(v)
        | gltf::animation::util::ReadOutputs::Scales(v) => {
            v.map(|v| Vec3::from(v).extend(0.0)).collect()
        }
        gltf::animation::util::ReadOutputs::Rotations(r) => r.into_f32().map(Vec4::from).collect(),
        gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => {
            return Err(missing(
                "a weights channel as translation, rotation or scale",
            ))
        }
    };
    if values.len() != expected {
        return Err(missing("every output value"));
    }
    for (i, v) in values.iter_mut().enumerate() {
        let (key, part) = (i / per_key, i % per_key);
        let what = match (per_key, part) {
            (3, 0) => "in-tangent",
            (3, 2) => "out-tangent",
            _ => "value",
        };
        if let Some(&value) = v.to_array().iter().find(|x| !x.is_finite()) {
            return Err(ErrorKind::NonFiniteKey { what, key, value });
        }
        // Key rotations are normalised; CUBICSPLINE tangents are derivatives, kept as they are.
        if property == Property::Rotation && what == "value" {
            *v = v
                .try_normalize()
                .ok_or(ErrorKind::ZeroLengthRotation { key })?;
        }
    }
    Ok(Channel {
        node,
        property,
        interpolation,
        times,
        values,
    })
}

/// Key times must be finite, start at or after 0 and strictly increase.
fn check_times(times: &[f32]) -> Result<(), ErrorKind> {
    if let Some((key, &value)) = times.iter().enumerate().find(|(_, t)| !t.is_finite()) {
        return Err(ErrorKind::NonFiniteKey {
            what: "time",
            key,
            value,
        });
    }
    if let Some(&time) = times.first().filter(|&&t| t < 0.0) {
        return Err(ErrorKind::NegativeKeyTime { time });
    }
    if let Some(key) = (1..times.len()).find(|&k| times[k] <= times[k - 1]) {
        return Err(ErrorKind::KeyTimesNotIncreasing {
            key,
            previous: times[key - 1],
            time: times[key],
        });
    }
    Ok(())
}
