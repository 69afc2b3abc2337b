//! Quaternion-map conformance over the shared meshes ($QTANGENT_ASSETS): FlightHelmet with each
//! material's normal map, and the duck, baked by the CPU reference (the GPU's agreement with it
//! is tests/unit/gpu/bake.rs). Crate-internal tests: the reference bake at the sizes they choose is
//! not public API.

use crate::common;

use glam::{Quat, Vec3};
use qtangent::qmap::{self, BakeMesh, BakeSettings, QuatMap, TexelKind};
use qtangent::QTangent;

/// Checks what holds for every map and prints its statistics.
fn check_map(label: &str, mesh: &BakeMesh, map: &QuatMap) {
    let s = map.stats;
    let texels = (s.width * s.height) as usize;
    assert_eq!(
        s.covered + s.fringe + s.padded + s.background,
        texels,
        "{label}"
    );
    assert!(s.covered > 0, "{label}: nothing covered");
    let level = &map.levels[0];
    // A stored unit quaternion has each component off by at most half a step, so its length
    // is within 2·half_step of 1 (|δ| ≤ 2e for four components).
    let slack = 2.0 * map.format.half_step() + 1e-6;
    for (k, kind) in map.kind.iter().enumerate() {
        let (q, h) = (level.quats[k], level.handedness[k]);
        if *kind == TexelKind::Background {
            assert_eq!(
                (q, h),
                (glam::Vec4::ZERO, 0),
                "{label}: background texel {k} written"
            );
            continue;
        }
        assert!(
            (q.length() - 1.0).abs() <= slack,
            "{label}: texel {k} |q| = {}",
            q.length()
        );
        assert!(h == 1 || h == -1, "{label}: texel {k} handedness {h}");
        if *kind == TexelKind::Covered {
            // The texel's handedness is its triangle's where the three corners agree.
            let t = map.triangle[k] as usize;
            let hs = [0, 1, 2].map(|c| mesh.frames[mesh.indices[3 * t + c] as usize].handedness());
            if hs[0] == hs[1] && hs[1] == hs[2] {
                assert_eq!(f32::from(h), hs[0], "{label}: texel {k} of triangle {t}");
            }
        }
    }
    println!(
        "{label}: {}×{} covered {:.1}% ({} overlapping), fringe {}, padded {}, mirrored {}, \
         hemisphere conflicts {} of {} pairs ({:.3}%), among covered {} of {} ({:.3}%)",
        s.width,
        s.height,
        100.0 * s.covered as f64 / texels as f64,
        s.overlapping,
        s.fringe,
        s.padded,
        s.mirrored,
        s.hemisphere_conflicts,
        s.neighbour_pairs,
        100.0 * s.conflict_fraction(),
        s.covered_conflicts,
        s.covered_pairs,
        100.0 * s.covered_conflicts as f64 / s.covered_pairs.max(1) as f64
    );
}

fn normal(map: &QuatMap, k: usize) -> Vec3 {
    let l = &map.levels[0];
    QTangent {
        rotation: Quat::from_vec4(l.quats[k]),
        reflected: l.handedness[k] < 0,
    }
    .to_frame()
    .normal
}

#[test]
fn flight_helmet_materials_bake_with_their_normal_maps() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let settings = BakeSettings {
        width: 256,
        height: 256,
        ..BakeSettings::default()
    };
    let mut baked = 0;
    for (name, mesh, nm) in common::flight_helmet_materials(&dir) {
        let map = qmap::bake_cpu(&mesh, Some(&nm), &settings, &mut ()).expect("bake");
        check_map(&name, &mesh, &map);
        // The normal map is really applied: without it, the map's normals differ (by more than
        // the format's bound) at a good share of covered texels.
        let flat = qmap::bake_cpu(&mesh, None, &settings, &mut ()).expect("bake");
        let covered: Vec<usize> = (0..map.kind.len())
            .filter(|&k| map.kind[k] == TexelKind::Covered)
            .collect();
        let bound = 2.0 * f64::from(map.format.max_error_deg().expect("an uncompressed format"));
        let differ = covered
            .iter()
            .filter(|&&k| qtangent::measure::angle_deg(normal(&map, k), normal(&flat, k)) > bound)
            .count();
        println!(
            "  {}: normal map moves {:.1}% of covered normals",
            name,
            100.0 * differ as f64 / covered.len() as f64
        );
        assert!(
            differ * 10 > covered.len(),
            "{}: the normal map changed too little",
            name
        );
        baked += 1;
    }
    assert_eq!(baked, 6, "FlightHelmet has six materials");
}

#[test]
fn duck_bakes_without_a_normal_map() {
    let Some(dir) = common::assets_dir() else {
        return;
    };
    let mesh = crate::test_bake::from_file(&dir.join("obj/duck.obj"), "duck");
    let map = qmap::bake_cpu(
        &mesh,
        None,
        &BakeSettings {
            width: 512,
            height: 512,
            ..BakeSettings::default()
        },
        &mut (),
    )
    .expect("bake");
    check_map("duck", &mesh, &map);
    assert!(
        map.stats.mirrored > 0 || map.stats.overlapping > 0,
        "the duck's mirrored UVs show up"
    );
}
