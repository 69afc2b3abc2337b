//! Wavefront OBJ (+ MTL) through `tobj`.
//!
//! Each OBJ object/group becomes one mesh with one primitive. Faces are triangulated by tobj;
//! vertices are the distinct (position, uv, normal) index triples, and every vertex keeps its
//! position index as its smoothing id, so generated normals are smooth across UV seams but
//! not across positions the file itself duplicated. `v` is flipped to glTF's top-left origin.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::Path;

use glam::{Mat4, Vec2, Vec3, Vec4};

use super::{
    repair, ErrorKind, ImageSource, Instance, Material, Mesh, MeshError, Primitive, Scene,
    TextureRef,
};
use crate::{Warning, WarningKind};

pub(super) fn load_slice(
    name: &Path,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Scene, MeshError> {
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let mtl_warnings = std::cell::RefCell::new(Vec::new());
    let loader = |mtl: &Path| material_library(mtl, base, &mut mtl_warnings.borrow_mut());
    // tobj would triangulate `l` polylines; points and lines are not surfaces, so they are
    // dropped here (with a warning, or an error when nothing else is left).
    let (faces_only, skipped) = screen(bytes).map_err(|kind| MeshError::file(name, kind))?;
    let (models, materials) = tobj::load_obj_buf(&mut Cursor::new(faces_only), &options, loader)
        .map_err(|e| MeshError::file(name, ErrorKind::InvalidObj(tobj_error(&e))))?;
    let mut warnings = mtl_warnings.into_inner();
    let materials: Vec<Material> = materials
        .unwrap_or_default()
        .iter()
        .map(|m| material(m, base, &mut warnings))
        .collect();
    let meshes = read_models(name, &models, materials.len(), &mut warnings)?;
    if meshes.is_empty() && skipped > 0 {
        let what = format!("{skipped} point and line elements skipped, and no faces");
        return Err(MeshError::file(name, ErrorKind::NoTrianglesAtAll(what)));
    }
    if meshes.is_empty() {
        return Err(MeshError::file(name, ErrorKind::NoMeshes));
    }
    if skipped > 0 {
        warnings.push(Warning::new(
            "",
            WarningKind::PointsAndLinesSkipped { count: skipped },
        ));
    }
    Ok(Scene {
        source: name.to_path_buf(),
        meshes,
        materials,
        warnings,
        ..Scene::default()
    })
}

/// Reads an `mtllib` for tobj: a regular file beside the OBJ (`mtllib /dev/zero` would
/// otherwise be read forever). One that cannot be read or parsed is skipped with a warning.
fn material_library(
    mtl: &Path,
    base: Option<&Path>,
    warnings: &mut Vec<Warning>,
) -> tobj::MTLLoadResult {
    let Some(base) = base else {
        warnings.push(Warning::new(
            "",
            WarningKind::MaterialLibraryFromMemory {
                library: mtl.display().to_string(),
            },
        ));
        return Err(tobj::LoadError::OpenFileFailed);
    };
    let path = base.join(mtl);
    let library = path.display().to_string();
    let read = if path.is_file() {
        std::fs::read(&path)
    } else {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "missing or not a regular file",
        ))
    };
    match read {
        Ok(data) => tobj::load_mtl_buf(&mut Cursor::new(data)).inspect_err(|e| {
            warnings.push(Warning::new(
                "",
                WarningKind::MaterialLibraryInvalid {
                    library,
                    error: e.to_string(),
                },
            ));
        }),
        Err(e) => {
            warnings.push(Warning::new(
                "",
                WarningKind::MaterialLibraryUnreadable {
                    library,
                    error: e.to_string(),
                },
            ));
            Err(tobj::LoadError::OpenFileFailed)
        }
    }
}

/// One mesh of one primitive per OBJ object or group with faces (repaired and validated), each
/// with one identity instance; objects without faces are skipped with a warning.
fn read_models(
    name: &Path,
    models: &[tobj::Model],
    materials: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Mesh>, MeshError> {
    let mut meshes = Vec::new();
    for (index, model) in models.iter().enumerate() {
        let mesh_name = if model.name.is_empty() {
            format!("mesh {index}")
        } else {
            model.name.clone()
        };
        let label = format!("mesh '{mesh_name}' primitive 0");
        if model.mesh.indices.is_empty() {
            warnings.push(Warning::new(label, WarningKind::ObjectWithoutFaces));
            continue;
        }
        let at = |kind| MeshError::at(name, &label, kind);
        let mut primitive = read_model(&model.mesh, label.clone()).map_err(at)?;
        primitive.material = model.mesh.material_id.filter(|&m| m < materials);
        warnings.extend(repair::repair(&mut primitive).warnings(&label));
        primitive.validate().map_err(at)?;
        meshes.push(Mesh {
            name: mesh_name,
            primitives: vec![primitive],
            instances: vec![Instance {
                node: index,
                world: Mat4::IDENTITY,
                skin: None,
            }],
            weights: Vec::new(),
        });
    }
    Ok(meshes)
}

/// Drops point and line elements (tobj would triangulate `l` polylines; they are not surfaces)
/// and checks every line by the rules tobj 4.0.5 parses it with, so a file tobj would refuse is
/// refused here with its line number (tobj's own errors carry none): the numbers of `v`, `vt`
/// and `vn`, the shape of face corners, and every face index against the elements defined
/// before it (a negative one past the start overflows inside tobj). Returns the faces-only text
/// and the number of elements dropped.
fn screen(bytes: &[u8]) -> Result<(Vec<u8>, usize), ErrorKind> {
    let mut skipped = 0usize;
    let mut defined = [0i64; 3]; // v, vt, vn seen so far
    let mut out = Vec::with_capacity(bytes.len());
    for (number, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let at =
            |problem: Problem| ErrorKind::InvalidObj(format!("line {}: {problem}", number + 1));
        // tobj reads lines as UTF-8 text.
        let text = std::str::from_utf8(line).map_err(|_| at(Problem::NotUtf8))?;
        let mut words = text.split_whitespace();
        match words.next() {
            Some("l" | "p") => {
                skipped += 1;
                continue;
            }
            Some("v") => {
                check_vertex(words).map_err(at)?;
                defined[0] += 1;
            }
            Some("vt") => {
                check_floats(words, 2, "texture coordinate (vt)").map_err(at)?;
                defined[1] += 1;
            }
            Some("vn") => {
                check_floats(words, 3, "normal (vn)").map_err(at)?;
                defined[2] += 1;
            }
            Some("f") => check_face(words, defined).map_err(at)?,
            Some("usemtl") if words.next().is_none() => {
                return Err(at(Problem::UsemtlWithoutName));
            }
            _ => {}
        }
        out.extend_from_slice(line);
    }
    Ok((out, skipped))
}

/// What is wrong with one OBJ line (the message follows `line N: `).
#[derive(Debug, thiserror::Error)]
enum Problem {
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("usemtl names no material")]
    UsemtlWithoutName,
    #[error("position (v) coordinate {index} '{word}' is not a number")]
    Coordinate { index: usize, word: String },
    #[error("position (v) has {found} of its 3 coordinates")]
    Coordinates { found: usize },
    #[error("position (v) has weight w = 0")]
    ZeroWeight,
    #[error("position (v) weight '{0}' is not a number")]
    Weight(String),
    #[error("position (v) has {0} values (3, 4 with a weight, or 6 with a colour)")]
    VertexValues(usize),
    #[error("{what} value '{word}' is not a number")]
    Value { what: &'static str, word: String },
    #[error("{what} has {found} of its {needed} values")]
    Values {
        what: &'static str,
        found: usize,
        needed: usize,
    },
    #[error("face corner '{0}' has more than three indices")]
    CornerIndices(String),
    #[error("face corner '{corner}': {what} index '{part}' is not an integer")]
    CornerIndex {
        corner: String,
        what: &'static str,
        part: String,
    },
    #[error("a face refers to {what} {index}, but {defined} are defined before it")]
    FaceIndex {
        what: &'static str,
        index: i64,
        defined: i64,
    },
    #[error("a face with no corners")]
    NoCorners,
}

/// tobj's rule for `v`: three numbers, then nothing, a non-zero weight w, or three colour values.
fn check_vertex<'a>(mut words: impl Iterator<Item = &'a str>) -> Result<(), Problem> {
    let mut take = |index: usize| -> Result<(), Problem> {
        match words.next() {
            Some(w) if w.parse::<f32>().is_ok() => Ok(()),
            Some(w) => Err(Problem::Coordinate {
                index,
                word: w.into(),
            }),
            None => Err(Problem::Coordinates { found: index }),
        }
    };
    (0..3).try_for_each(&mut take)?;
    let rest: Vec<&str> = words.collect();
    match rest.as_slice() {
        [] | [_, _, _] => Ok(()),
        [w] => match w.parse::<f32>() {
            Ok(0.0) => Err(Problem::ZeroWeight),
            Ok(_) => Ok(()),
            Err(_) => Err(Problem::Weight((*w).into())),
        },
        _ => Err(Problem::VertexValues(rest.len() + 3)),
    }
}

/// tobj's rule for `vt` and `vn`: the first `needed` words are numbers (more are ignored).
fn check_floats<'a>(
    words: impl Iterator<Item = &'a str>,
    needed: usize,
    what: &'static str,
) -> Result<(), Problem> {
    let mut found = 0;
    for w in words.take(needed) {
        if w.parse::<f32>().is_err() {
            return Err(Problem::Value {
                what,
                word: w.into(),
            });
        }
        found += 1;
    }
    if found < needed {
        return Err(Problem::Values {
            what,
            found,
            needed,
        });
    }
    Ok(())
}

/// tobj's rule for `f`: at least one corner, each `v`, `v/vt`, `v//vn` or `v/vt/vn` with
/// integer indices; and every index names an element defined before the face.
fn check_face<'a>(words: impl Iterator<Item = &'a str>, defined: [i64; 3]) -> Result<(), Problem> {
    let mut corners = 0;
    for corner in words {
        corners += 1;
        let parts: Vec<&str> = corner.split('/').collect();
        if parts.len() > 3 {
            return Err(Problem::CornerIndices(corner.into()));
        }
        for (k, part) in parts.iter().enumerate() {
            if part.is_empty() {
                continue; // `1//3`: no texture coordinate
            }
            let what = ["vertex", "texture coordinate", "normal"][k];
            let index: i64 = part.parse().map_err(|_| Problem::CornerIndex {
                corner: corner.into(),
                what,
                part: (*part).into(),
            })?;
            let n = defined[k];
            if index == 0 || index > n || index < -n {
                return Err(Problem::FaceIndex {
                    what,
                    index,
                    defined: n,
                });
            }
        }
    }
    if corners == 0 {
        return Err(Problem::NoCorners);
    }
    Ok(())
}

/// tobj's errors that [`screen`] cannot place on a line (tobj finds them when a group ends),
/// said in words.
fn tobj_error(e: &tobj::LoadError) -> String {
    match e {
        tobj::LoadError::FaceColorOutOfBounds => {
            "some vertices have a colour and others not (tobj needs a colour on every vertex or none)"
                .into()
        }
        tobj::LoadError::InvalidPolygon => "a face has too few corners".into(),
        other => other.to_string(),
    }
}

/// Builds one vertex per distinct (position, uv, normal) index triple.
fn read_model(m: &tobj::Mesh, label: String) -> Result<Primitive, ErrorKind> {
    let corners = m.indices.len();
    let has_uv = !m.texcoord_indices.is_empty();
    let has_normal = !m.normal_indices.is_empty();
    for (what, n) in [
        ("uv", m.texcoord_indices.len()),
        ("normal", m.normal_indices.len()),
    ] {
        if n != 0 && n != corners {
            return Err(ErrorKind::CountMismatch {
                attribute: format!("face {what} indices"),
                count: n,
                positions: corners,
            });
        }
    }
    let fetch = |data: &[f32], dims: usize, i: u32, what: &str| -> Result<Vec<f32>, ErrorKind> {
        let start = i as usize * dims;
        data.get(start..start + dims)
            .map(<[f32]>::to_vec)
            .ok_or_else(|| {
                ErrorKind::InvalidObj(format!(
                    "a face refers to {what} {} but the file has {}",
                    u64::from(i) + 1,
                    data.len() / dims
                ))
            })
    };
    let mut map: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut p = Primitive {
        label,
        ..Default::default()
    };
    let (mut uvs, mut normals, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for c in 0..corners {
        let pi = m.indices[c];
        let ti = if has_uv { m.texcoord_indices[c] } else { 0 };
        let ni = if has_normal { m.normal_indices[c] } else { 0 };
        let next = u32::try_from(p.positions.len()).unwrap_or(u32::MAX);
        let v = *map.entry((pi, ti, ni)).or_insert(next);
        if v == next {
            let pos = fetch(&m.positions, 3, pi, "position")?;
            p.positions.push(Vec3::new(pos[0], pos[1], pos[2]));
            ids.push(pi);
            if has_uv {
                let uv = fetch(&m.texcoords, 2, ti, "texture coordinate")?;
                // OBJ's origin is bottom-left; glTF's (and wgpu's) is top-left.
                uvs.push(Vec2::new(uv[0], 1.0 - uv[1]));
            }
            if has_normal {
                let n = fetch(&m.normals, 3, ni, "normal")?;
                normals.push(Vec3::new(n[0], n[1], n[2]));
            }
        }
        p.indices.push(v);
    }
    p.uvs = has_uv.then_some(uvs);
    p.normals = has_normal.then_some(normals);
    p.smoothing_ids = Some(ids);
    Ok(p)
}

fn material(m: &tobj::Material, base: Option<&Path>, warnings: &mut Vec<Warning>) -> Material {
    // A texture whose file is not beside the OBJ (exporters leave such names behind) is dropped
    // with a warning naming the material and the path: the mesh is still worth packing.
    let mut texture = |name: &Option<String>, which: &'static str| {
        let name = name.as_deref()?;
        let path = base.map_or_else(|| name.into(), |b| b.join(name));
        if base.is_some() && !path.is_file() {
            warnings.push(Warning::new(
                format!("material '{}'", m.name),
                WarningKind::TextureFileMissing {
                    texture: which,
                    path: path.display().to_string(),
                },
            ));
            return None;
        }
        Some(TextureRef {
            image: ImageSource::File(path),
            tex_coord: 0,
            scale: 1.0,
        })
    };
    let diffuse = m.diffuse.unwrap_or([1.0; 3]);
    Material {
        name: m.name.clone(),
        base_color: Vec4::new(
            diffuse[0],
            diffuse[1],
            diffuse[2],
            m.dissolve.unwrap_or(1.0),
        ),
        base_color_texture: texture(&m.diffuse_texture, "base colour"),
        normal_texture: texture(&m.normal_texture, "normal"),
        metallic_roughness_texture: None,
        metallic: 0.0,
        roughness: m
            .shininess
            .map_or(1.0, |s| (2.0 / (s + 2.0)).sqrt().clamp(0.0, 1.0)),
        anisotropy: None,
        uv_transform: None,
        tangent_map: None,
    }
}
