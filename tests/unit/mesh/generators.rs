//! The two tangent generators on real meshes: meshoptimizer's MikkTSpace-compatible generator
//! (the default) against the MikkTSpace reference port (`exact_mikktspace`), corner by corner,
//! and the exact mode against `bevy_mikktspace` called here directly, bit for bit.

use glam::{Vec2, Vec3, Vec4};
use qtangent::measure::angle_deg;
use qtangent::mesh::tangents::frame_from_normal;
use qtangent::mesh::{self, Primitive};
use qtangent::TangentFrame;

/// The meshes whose tangents are generated: every primitive with UVs of the shared assets'
/// glTF and OBJ files (supplied tangents dropped, as a file without TANGENT has them) and of
/// the lab corpus (ribbed scene, lamp, tori), and a procedural torus.
fn primitives() -> Option<Vec<(String, Primitive)>> {
    let assets = crate::common::assets_dir()?;
    let dir = tempfile::tempdir().expect("temporary folder");
    qtangent::lab::content::corpus(dir.path(), &[]).expect("the lab corpus");
    let mut files: Vec<std::path::PathBuf> = [
        "gltf/FlightHelmet/FlightHelmet.gltf",
        "gltf/Fox.glb",
        "obj/duck.obj",
        "obj/laikago_upper_leg_mirror.obj",
        "obj/sphere_smooth.obj",
        "obj/torus_textured.obj",
    ]
    .iter()
    .map(|f| assets.join(f))
    .collect();
    files.extend(
        ["ribbed", "lamp", "shared", "instanced"].map(|n| dir.path().join(format!("{n}.gltf"))),
    );
    let mut out = Vec::new();
    for file in files {
        let scene = mesh::load(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (_, p) in scene.primitives() {
            if p.uvs.is_some() {
                let name = format!(
                    "{} {}",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    p.label
                );
                out.push((
                    name,
                    Primitive {
                        tangents: None,
                        ..p.clone()
                    },
                ));
            }
        }
    }
    out.push(("torus".into(), Primitive::torus(1.0, 0.35, 96, 48)));
    Some(out)
}

/// Each corner's frame: the prepared vertex its triangle corner points at.
fn corner_frames(p: &Primitive, exact: bool) -> (Vec<TangentFrame>, mesh::PrimitiveStats) {
    let prepared = Primitive {
        exact_mikktspace: exact,
        ..p.clone()
    }
    .prepare()
    .expect("prepares");
    let frames = prepared
        .indices
        .iter()
        .map(|&v| prepared.frames[v as usize])
        .collect();
    (frames, prepared.stats)
}

/// The bound on the angle between the two generators' tangents at any corner: a quarter of an
/// 8-bit normal map's step at its flat normal (2/255 in x is 0.449°). A tangent turned by δ turns
/// a normal-mapped normal of tilt θ by at most δ·sin θ < δ, so below this bound the generators'
/// difference moves what a MikkTSpace-baked normal map draws by less than the map's own
/// rounding. Measured on these meshes: 0.028° at worst, 0.0004° mean.
const MAX_TANGENT_DEG: f64 = 0.449 / 4.0;

/// Every corner of every mesh that MikkTSpace gives a tangent: the default generator's within
/// [`MAX_TANGENT_DEG`] of it, with the same handedness and normal, so the same vertices and
/// mirror-seam splits. Where MikkTSpace gives none (a vertex whose triangles it finds
/// degenerate: the corner is a fallback frame), meshoptimizer may take a tangent from a
/// sliver it still accepts: counted and printed (one corner of the mirrored leg's 6,774).
#[test]
fn meshopt_tangents_match_mikktspace_on_real_meshes() {
    let Some(list) = primitives() else {
        return;
    };
    let mut worst = 0.0f64;
    for (name, p) in &list {
        let (exact, exact_stats) = corner_frames(p, true);
        let (fast, fast_stats) = corner_frames(p, false);
        // A fallback frame's tangent is the normal's orthonormal pair (to the f32 rounding of
        // the stored normal: 1e-3°); a generated tangent lands there by chance only.
        let is_fallback = |f: &TangentFrame| {
            angle_deg(f.tangent, frame_from_normal(f.normal, 1.0).tangent) < 1e-3
        };
        let (mut angles, mut taken) = (Vec::new(), 0);
        for (a, b) in exact.iter().zip(&fast) {
            if is_fallback(a) {
                taken += usize::from(!is_fallback(b));
                continue;
            }
            assert!(
                a.handedness() == b.handedness() && a.normal == b.normal,
                "{name}: a corner's handedness or normal differs: {a:?} against {b:?}"
            );
            angles.push(angle_deg(a.tangent, b.tangent));
        }
        let mean = angles.iter().sum::<f64>() / angles.len().max(1) as f64;
        let max = angles.iter().copied().fold(0.0, f64::max);
        println!(
            "{name}: {} corners, tangents {mean:.5}° mean, {max:.5}° max apart; {taken} of MikkTSpace's fallback corners given a tangent",
            angles.len()
        );
        assert!(max <= MAX_TANGENT_DEG, "{name}: tangents {max}° apart");
        assert_eq!(
            (exact_stats.vertices, exact_stats.mirror_split_vertices),
            (fast_stats.vertices, fast_stats.mirror_split_vertices),
            "{name}: vertices, mirror splits"
        );
        // Fallback vertices: never more than MikkTSpace's.
        assert!(
            fast_stats.fallback_frames <= exact_stats.fallback_frames,
            "{name}: {} fallback frames against MikkTSpace's {}",
            fast_stats.fallback_frames,
            exact_stats.fallback_frames
        );
        worst = worst.max(max);
    }
    println!("the generators' tangents: {worst:.4}° apart at worst");
}

/// MikkTSpace called here directly, as a normal-map baker calls it: each corner's tangent and
/// sign (given `(u, 1 − v)`), or `None`.
struct Mikk<'a>(
    &'a [Vec3],
    &'a [Vec3],
    &'a [Vec2],
    &'a [u32],
    Vec<Option<Vec4>>,
);

impl bevy_mikktspace::Geometry for Mikk<'_> {
    fn num_faces(&self) -> usize {
        self.3.len() / 3
    }
    fn num_vertices_of_face(&self, _: usize) -> usize {
        3
    }
    fn position(&self, f: usize, v: usize) -> [f32; 3] {
        self.0[self.3[f * 3 + v] as usize].to_array()
    }
    fn normal(&self, f: usize, v: usize) -> [f32; 3] {
        self.1[self.3[f * 3 + v] as usize].to_array()
    }
    fn tex_coord(&self, f: usize, v: usize) -> [f32; 2] {
        let uv = self.2[self.3[f * 3 + v] as usize];
        [uv.x, 1.0 - uv.y]
    }
    fn set_tangent(&mut self, t: Option<bevy_mikktspace::TangentSpace>, f: usize, v: usize) {
        self.4[f * 3 + v] = t.map(|t| Vec4::from(t.tangent_encoded()));
    }
}

/// `exact_mikktspace` gives, at every corner, the frame of MikkTSpace's own tangent (the
/// reference port called directly) with the primitive's normal, bit for bit: what earlier
/// versions gave, and what a baker using MikkTSpace saw. Corners MikkTSpace leaves without a
/// tangent are fallback frames. Primitives with supplied normals (normalised as `prepare` does:
/// scaled by their largest component, then normalised in f32); generated ones are other code.
#[test]
fn exact_mikktspace_is_mikktspace_bit_for_bit() {
    let Some(list) = primitives() else {
        return;
    };
    let mut checked = 0;
    for (name, p) in &list {
        let (Some(normals), Some(uvs)) = (&p.normals, &p.uvs) else {
            continue;
        };
        let unit: Vec<Vec3> = normals
            .iter()
            .map(|v| (*v / v.abs().max_element()).normalize())
            .collect();
        let (frames, _) = corner_frames(p, true);
        let mut mikk = Mikk(
            &p.positions,
            &unit,
            uvs,
            &p.indices,
            vec![None; p.indices.len()],
        );
        let _ = bevy_mikktspace::generate_tangents(&mut mikk);
        let mut fallbacks = 0;
        for (k, (f, t)) in frames.iter().zip(&mikk.4).enumerate() {
            let n = unit[p.indices[k] as usize];
            match t.and_then(|t| TangentFrame::from_normal_tangent(n, t).ok()) {
                Some(want) => assert_eq!(*f, want, "{name}: corner {k}"),
                None => fallbacks += 1,
            }
        }
        checked += frames.len();
        println!(
            "{name}: {} corners bit for bit, {fallbacks} fallback",
            frames.len()
        );
    }
    // FlightHelmet alone has 284,166 corners with supplied normals.
    assert!(checked > 280_000, "{checked} corners checked");
}
