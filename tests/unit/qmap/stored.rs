//! Stored quaternion maps (`qmap::stored`): every format of both kinds through KTX2 and back,
//! every level byte for byte (written by `qtangent::ktx2`, read back both by it and by the
//! independent `ktx2` crate), and the bad input a user can give: a format that cannot hold the
//! map, a size BC cannot take, truncated files, files of another vkFormat or of no kind.

use crate::common;

use glam::{Vec2, Vec3};
use qtangent::ktx2::{self, Ktx2Texture, TexelFormat};
use qtangent::qmap::stored::Encoding;
use qtangent::qmap::stored::{EncodedMap, KEY_DECODE, KEY_FORMAT, KEY_SPACE};
use qtangent::qmap::MapSpace;
use qtangent::qmap::{tangent, MapFormat, NormalMap, QuatMap};
use qtangent::qmap::{BakeError, Unfit};
use rand::Rng;

fn tangent_map(rng: &mut impl Rng, size: u32, twist: bool) -> QuatMap {
    let (a, b): (f32, f32) = (rng.random_range(1.0..4.0), rng.random_range(0.0..6.0));
    let nm = NormalMap::from_height(size, 3.0, move |u, v| {
        (std::f32::consts::TAU * (u * a.round() + b)).sin() * (std::f32::consts::TAU * v).cos()
    });
    let mut levels = vec![nm];
    while levels.last().is_some_and(|l| l.width > 1) {
        let l = levels.last().expect("level");
        let w = l.width / 2;
        let texels = (0..w * w)
            .map(|i| l.texels[((i / w) * 2 * l.width + (i % w) * 2) as usize])
            .collect();
        levels.push(NormalMap {
            width: w,
            height: w,
            texels,
        });
    }
    let f = |uv: Vec2| uv.x - 0.5;
    let f = qtangent::lab::fixtures::twist_levels(&levels, &f);
    tangent::bake_cpu(
        &levels,
        twist.then_some(tangent::TwistField(&f)),
        MapFormat::Rgba32Float,
    )
}

fn object_map(size: u32) -> QuatMap {
    let torus = qtangent::mesh::Primitive::torus(1.0, 0.4, 24, 12);
    crate::test_bake::exact_map(&crate::test_bake::from_primitive(&torus), size, size)
}

#[test]
fn every_format_and_level_round_trips_through_ktx2() {
    let dir = tempfile::tempdir().expect("temp dir");
    common::for_seeds("stored ktx2 round trip", 2, |seed, rng| {
        let maps = [
            (MapSpace::Tangent, tangent_map(rng, 64, false)),
            (MapSpace::Tangent, tangent_map(rng, 32, true)),
            (MapSpace::Object, object_map(64)),
        ];
        for (space, map) in &maps {
            for format in MapFormat::ALL {
                for keep in [false, true] {
                    let stored = match EncodedMap::encode(
                        map,
                        &Encoding {
                            keep_handedness: keep,
                            ..Encoding::new(*space, format)
                        },
                    ) {
                        Ok(s) => s,
                        Err(e) => {
                            // Only BC5 of an object-space map or of a twist refuses, and two
                            // BC5 layers a handedness plane.
                            let pair_plane =
                                format == MapFormat::Bc5Pair && keep && *space == MapSpace::Object;
                            assert!(
                                format == MapFormat::Bc5 || pair_plane,
                                "seed {seed:#x}: {format}: {e}"
                            );
                            continue;
                        }
                    };
                    assert_eq!(stored.levels.len(), map.levels.len());
                    assert_eq!(
                        stored.handedness.is_some(),
                        keep && *space == MapSpace::Object
                    );
                    let (main, plane) = stored.to_ktx2();
                    let path = dir
                        .path()
                        .join(format!("{}-{format}-{keep}.ktx2", space.name()));
                    ktx2::write_file(&path, &main).expect("writes");
                    let back = ktx2::read_file(&path).expect("reads");
                    // The independent reader agrees on format, size and every level.
                    let bytes = std::fs::read(&path).expect("file");
                    let reader = ::ktx2::Reader::new(&bytes[..]).expect("the ktx2 crate reads it");
                    let header = reader.header();
                    // A bc5 map of a tilt is the normal layout, BC5 UNORM (141): the only bc5
                    // maps that encode are the tangent ones without a twist, whose height-field
                    // normals all face up. Every other map is in its format's texel format.
                    let vk = if format == MapFormat::Bc5 && *space == MapSpace::Tangent {
                        141
                    } else {
                        format.texel_format().vk_format()
                    };
                    assert_eq!(header.format.map(|f| f.value()), Some(vk), "{format}");
                    assert_eq!(
                        (header.pixel_width, header.pixel_height),
                        (map.width(), map.height())
                    );
                    // Two BC5 layers are an array texture of two layers, every level.
                    let layers = u32::from(format == MapFormat::Bc5Pair) * 2;
                    assert_eq!(header.layer_count, layers, "{format}");
                    for (k, level) in reader.levels().enumerate() {
                        assert_eq!(level.data, &stored.levels[k][..], "{format} level {k}");
                    }
                    assert_eq!(back.key_value_text(KEY_SPACE), Some(space.name()));
                    assert_eq!(back.key_value_text(KEY_FORMAT), Some(format.name()));
                    assert!(back
                        .key_value_text(KEY_DECODE)
                        .is_some_and(|d| d.contains("q =") || d.contains("w = sqrt")));
                    let plane_back = plane.map(|p| {
                        let pp = dir.path().join("plane.ktx2");
                        ktx2::write_file(&pp, &p).expect("plane writes");
                        ktx2::read_file(&pp).expect("plane reads")
                    });
                    let again = EncodedMap::from_ktx2("test", &back, plane_back.as_ref())
                        .expect("a stored map again");
                    assert_eq!(again, stored, "seed {seed:#x}: {} {format}", space.name());
                    // Every level decodes to unit-ish quaternions (BC5 rebuilds w).
                    for k in 0..again.levels.len() {
                        let qs = again.decode_level(k).expect("decodes");
                        assert!(qs.iter().all(|q| q.is_finite()));
                    }
                }
            }
        }
    });
}

/// A format that cannot hold the map is a typed error saying what it cannot hold; the message
/// names no command-line flag (the tools add that advice).
#[test]
fn formats_that_cannot_hold_the_map_say_why() {
    let mut rng = rand_pcg::Pcg64Mcg::new(7);
    let twisted = tangent_map(&mut rng, 16, true);
    for (map, space, unfit, says) in [
        (&twisted, MapSpace::Tangent, Unfit::TiltAndTwist, "twist"),
        (
            &object_map(16),
            MapSpace::Object,
            Unfit::ObjectSpace,
            "object-space",
        ),
    ] {
        let e = EncodedMap::encode(map, &Encoding::new(space, MapFormat::Bc5))
            .expect_err("bc5 cannot hold it");
        assert!(
            matches!(
                e,
                BakeError::Unfit {
                    format: MapFormat::Bc5,
                    unfit: u
                } if u == unfit
            ),
            "{says}: {e:?}"
        );
        assert!(
            e.to_string().contains(says) && !e.to_string().contains("--"),
            "{e}"
        );
    }
}

#[test]
fn sizes_bc_cannot_take_are_clear_errors() {
    let nm = NormalMap {
        width: 250,
        height: 250,
        texels: vec![Vec3::Z; 250 * 250],
    };
    let map = tangent::bake_cpu(&[nm], None, MapFormat::Rgba32Float);
    for format in [MapFormat::Bc5, MapFormat::Bc7] {
        let e = EncodedMap::encode(&map, &Encoding::new(MapSpace::Tangent, format))
            .expect_err("250 is not a multiple of 4");
        assert!(
            e.to_string().contains("250") && e.to_string().contains("multiples of 4"),
            "{e}"
        );
    }
    // The plain formats take any size.
    EncodedMap::encode(
        &map,
        &Encoding::new(MapSpace::Tangent, MapFormat::Rgba8Snorm),
    )
    .expect("rgba8 takes 250²");
}

#[test]
fn bad_ktx2_files_are_errors_not_panics() {
    let mut rng = rand_pcg::Pcg64Mcg::new(11);
    let map = tangent_map(&mut rng, 16, false);
    let stored = EncodedMap::encode(&map, &Encoding::new(MapSpace::Tangent, MapFormat::Bc5))
        .expect("stores");
    let (main, _) = stored.to_ktx2();
    let bytes = ktx2::write(&main).expect("writes");
    // Truncated at every length: an error each time.
    for len in 0..bytes.len() {
        assert!(
            ktx2::read(&bytes[..len]).is_err(),
            "a file cut at {len} bytes read"
        );
    }
    // Another vkFormat: a texture qtangent writes, but no map (the handedness plane's R8).
    let r8 = Ktx2Texture {
        layers: 0,
        format: TexelFormat::R8Snorm,
        width: 4,
        height: 4,
        levels: vec![vec![127; 16]],
        key_values: vec![(KEY_SPACE.into(), b"object\0".to_vec())],
    };
    let e = EncodedMap::from_ktx2("plane.ktx2", &r8, None).expect_err("R8 is no map format");
    assert!(
        e.to_string().contains("plane.ktx2") && e.to_string().contains("vkFormat 10"),
        "{e}"
    );
    // A map file with no qtangent.kind.
    let mut bare = main.clone();
    bare.key_values.clear();
    let e = EncodedMap::from_ktx2("bare.ktx2", &bare, None).expect_err("no kind");
    assert!(e.to_string().contains(KEY_SPACE), "{e}");
    // A file of a vkFormat nothing here reads (B8G8R8A8_UNORM, 44) patched into the header.
    let mut patched = bytes.clone();
    patched[12..16].copy_from_slice(&44u32.to_le_bytes());
    let e = ktx2::read(&patched).expect_err("vkFormat 44");
    assert!(e.to_string().contains("44"), "{e}");
}

/// Two BC5 layers ([`MapFormat::Bc5Pair`]) of a map with a tilt and a twist: read straight from
/// the stored blocks with `bcdec_rs`, layer 0 is the normal's (x, y) in tangent space (what a
/// BC5 normal map holds) and the swing's (x, y) in object space, layer 1 the twist's (z, w) —
/// each worked out here with glam (the rotated +Z, the shortest arc from +Z to it, and
/// swing⁻¹ ⊗ r) — within BC5's contract per component (`qmap::bc`: ½ a snorm step for the byte,
/// plus half a palette step, range/14, of the block's spread); and the map's own decode joins
/// them back to the rotation (glam's arc from +Z to the rebuilt normal, or the swing with its w
/// rebuilt, ⊗ the twist).
#[test]
fn two_bc5_layers_hold_the_tilt_and_the_twist_within_bc5s_bound() {
    use glam::{Quat, Vec4};
    common::for_seeds("bc5x2 tilt and twist", 3, |seed, rng| {
        let map = tangent_map(rng, 64, true);
        for space in [MapSpace::Tangent, MapSpace::Object] {
            let stored = EncodedMap::encode(&map, &Encoding::new(space, MapFormat::Bc5Pair))
                .expect("bc5x2 holds a tilt and a twist");
            let layers = bc5x2_layers(&map, &stored, seed, space);
            // The map's decode joins the layers: (tangent) the arc from +Z to n = (x, y,
            // √(1 − x² − y²)), (object) the swing (x, y, 0, √(1 − x² − y²)), ⊗ twist (0, 0, z, w),
            // by glam; f32 rounding of a dozen operations on unit values: 1e-5.
            let decoded = stored.decode_level(0).expect("decodes");
            for (i, d) in decoded.iter().enumerate() {
                let [x, y] = layers[0][i];
                let [tz, tw] = layers[1][i];
                let rebuilt = (1.0 - x * x - y * y).max(0.0).sqrt();
                let tilt = match space {
                    MapSpace::Tangent => Quat::from_rotation_arc(Vec3::Z, Vec3::new(x, y, rebuilt)),
                    MapSpace::Object => Quat::from_xyzw(x, y, 0.0, rebuilt),
                };
                let want = Vec4::from(tilt * Quat::from_xyzw(0.0, 0.0, tz, tw));
                assert!(
                    (*d - want).abs().max_element() < 1e-5,
                    "seed {seed:#x} {space} texel {i}: {d} against {want}"
                );
            }
        }
    });
}

/// The two layers of a `bc5x2` map of `space` as decoded from its level-0 blocks, each checked
/// against glam's (normal or swing (x, y), twist (z, w)) within BC5's per-component bound.
fn bc5x2_layers(
    map: &QuatMap,
    stored: &EncodedMap,
    seed: u64,
    space: MapSpace,
) -> [Vec<[f32; 2]>; 2] {
    use glam::Quat;
    let level = &map.levels[0];
    let (w, h) = (level.width as usize, level.height as usize);
    let bytes = &stored.levels[0];
    let (layer0, layer1) = bytes.split_at(bytes.len() / 2);
    // Expected (normal or swing xy, twist zw) per texel, by glam.
    let expected: Vec<([f32; 2], [f32; 2])> = level
        .quats
        .iter()
        .map(|q| {
            let r = Quat::from_xyzw(q.x, q.y, q.z, q.w).normalize();
            let n = r * Vec3::Z;
            let swing = Quat::from_rotation_arc(Vec3::Z, n);
            let twist = swing.inverse() * r;
            let tilt = match space {
                MapSpace::Tangent => [n.x, n.y],
                MapSpace::Object => [swing.x, swing.y],
            };
            (tilt, [twist.z, twist.w])
        })
        .collect();
    let blocks_x = w / 4;
    let mut layers = [vec![[0f32; 2]; w * h], vec![[0f32; 2]; w * h]];
    for (layer, blocks) in [layer0, layer1].into_iter().enumerate() {
        for (b, block) in blocks.chunks_exact(16).enumerate() {
            let mut rg = [0f32; 32];
            bcdec_rs::bc5_float(block, &mut rg, 8, true);
            let texel = |k: usize| ((b / blocks_x) * 4 + k / 4) * w + (b % blocks_x) * 4 + k % 4;
            // The block's twists share a hemisphere in the store; glam's may not.
            let value = |k: usize, c: usize| {
                let (s, t) = expected[texel(k)];
                if layer == 0 {
                    s[c]
                } else {
                    let sign = if Vec2::from(t).dot(Vec2::new(rg[0], rg[1])) < 0.0 {
                        -1.0
                    } else {
                        1.0
                    };
                    sign * t[c]
                }
            };
            for c in 0..2 {
                let bytes: Vec<f32> = (0..16).map(|k| (value(k, c) * 127.0).round()).collect();
                let range = bytes.iter().copied().fold(f32::MIN, f32::max)
                    - bytes.iter().copied().fold(f32::MAX, f32::min);
                // + 1e-4: f32 rounding of the decode and of glam's arc, far below a step.
                let bound = (0.5 + range / 14.0) / 127.0 + 1e-4;
                for k in 0..16 {
                    let (got, want) = (rg[2 * k + c], value(k, c));
                    layers[layer][texel(k)][c] = got;
                    assert!(
                        (got - want).abs() <= bound,
                        "seed {seed:#x} {space} layer {layer} block {b} texel {k} channel {c}: {got} against {want} (bound {bound})"
                    );
                }
            }
        }
    }
    layers
}

/// A tangent-space map whose normals tilt past the horizon (n.z < 0: a normal map's blue below
/// ½) with a twist: two BC5 layers, whose first rebuilds z ≥ 0, refuse it, and the baker stores
/// it as BC7 with a warning counting the texels; the same map with its normals above the
/// horizon stays `bc5x2`.
#[test]
fn tilts_past_the_horizon_are_not_folded_into_two_bc5_layers() {
    use qtangent::qmap::{Baker, MapOptions};
    use qtangent::{Warning, WarningKind};
    let map_with = |z: f32| {
        let level = NormalMap {
            width: 8,
            height: 8,
            texels: vec![Vec3::new(1.0, 0.0, z).normalize(); 64],
        };
        let f = |uv: Vec2| uv.x - 0.5;
        let f = qtangent::lab::fixtures::twist_levels(std::slice::from_ref(&level), &f);
        tangent::bake_cpu(
            &[level],
            Some(tangent::TwistField(&f)),
            MapFormat::Rgba32Float,
        )
    };
    let (below, above) = (map_with(-0.2), map_with(0.2));
    let pair = Encoding::new(MapSpace::Tangent, MapFormat::Bc5Pair);
    assert!(matches!(
        EncodedMap::encode(&below, &pair),
        Err(BakeError::Unfit {
            unfit: Unfit::TiltPastHorizon,
            ..
        })
    ));
    let options = MapOptions::default();
    let store = |map: &QuatMap| {
        let mut warnings: Vec<Warning> = Vec::new();
        let stored = Baker::new(qtangent::qmap::RasterBackend::CPU, &options)
            .store(map, MapSpace::Tangent, "tilted", &mut warnings)
            .expect("stores");
        (stored.format, warnings)
    };
    let (format, warnings) = store(&below);
    assert_eq!(format, MapFormat::Bc7);
    // One level of 8 × 8 texels, every one tilted 101°.
    let kinds: Vec<&WarningKind> = warnings.iter().map(Warning::kind).collect();
    assert_eq!(kinds, [&WarningKind::TiltPastHorizon { texels: 64 }]);
    let (format, warnings) = store(&above);
    assert_eq!(format, MapFormat::Bc5Pair, "{warnings:?}");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// An authored object-space map keeps its handedness plane, which two BC5 layers cannot hold
/// (their second layer takes the plane's place): asked for `bc5x2`, the baker stores it as BC7
/// and says so, where `render --map-format bc5x2` used to fail on the default scene's plate.
#[test]
fn bc5x2_asked_of_a_map_with_a_plane_is_stored_as_bc7_with_a_warning() {
    use qtangent::qmap::{Baker, MapOptions};
    use qtangent::{Warning, WarningKind};
    let map = object_map(16);
    let options = MapOptions::stored(MapFormat::Bc5Pair);
    let mut warnings: Vec<Warning> = Vec::new();
    let stored = Baker::new(qtangent::qmap::RasterBackend::CPU, &options)
        .store(&map, MapSpace::Object, "plate", &mut warnings)
        .expect("stores");
    assert_eq!(stored.format, MapFormat::Bc7);
    assert!(stored.handedness.is_some(), "the plane is kept");
    let kinds: Vec<&WarningKind> = warnings.iter().map(Warning::kind).collect();
    assert_eq!(kinds, [&WarningKind::PlaneNotInBc5Pair]);
}

/// `write_ktx2` / `read_ktx2` on files: the map and its plane beside it, the material key both
/// carry, a map without a plane removing a stale plane (else `read_ktx2` would read it with
/// the new map), and a file name that does not end in `.ktx2`.
#[test]
fn maps_written_to_files_read_back_with_their_plane() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let with_plane = EncodedMap::encode(
        &object_map(8),
        &Encoding {
            keep_handedness: true,
            ..Encoding::new(MapSpace::Object, MapFormat::Rgba16Float)
        },
    )
    .expect("stores");
    assert!(with_plane.handedness.is_some(), "the test needs a plane");
    let path = dir.path().join("m.ktx2");
    let files = with_plane
        .write_ktx2(&path, Some("glazed ceramic"))
        .expect("writes");
    assert_eq!(files, [path.clone(), dir.path().join("m.handedness.ktx2")]);
    assert_eq!(EncodedMap::read_ktx2(&path).expect("reads"), with_plane);
    for f in &files {
        let tex = ktx2::read_file(f).expect("reads");
        assert_eq!(
            tex.key_value_text(qtangent::qmap::stored::KEY_MATERIAL),
            Some("glazed ceramic"),
            "{}",
            f.display()
        );
    }

    // The same name without a plane: the old plane goes, and the map reads alone.
    let without = EncodedMap::encode(
        &object_map(8),
        &Encoding::new(MapSpace::Object, MapFormat::Rgba16Float),
    )
    .expect("stores");
    assert!(without.handedness.is_none());
    assert_eq!(
        without.write_ktx2(&path, None).expect("writes"),
        std::slice::from_ref(&path)
    );
    assert!(!files[1].exists(), "a stale plane is left beside the map");
    assert_eq!(EncodedMap::read_ktx2(&path).expect("reads"), without);

    // Any other name gets `.handedness.ktx2` appended for its plane.
    let odd = dir.path().join("m.bin");
    let files = with_plane.write_ktx2(&odd, None).expect("writes");
    assert_eq!(files[1], dir.path().join("m.bin.handedness.ktx2"));
    assert_eq!(EncodedMap::read_ktx2(&odd).expect("reads"), with_plane);
}

/// A tangent-space `bc5` map of a tilt alone stores **the normal's (x, y)** — what a BC5 normal
/// map holds — not the swing's: read straight from the blocks with `bcdec_rs`, each texel is
/// glam's rotated +Z within BC5's contract per component (as for `bc5x2`'s layer 0); the map's
/// decode is glam's shortest arc from +Z to the rebuilt normal; the layout survives KTX2
/// (BC5 UNORM, `qtangent.channels` = `normal`, decode `bc5_normal`); a map whose normals tilt
/// past the horizon keeps the swing's (x, y), which holds them; and an object-space file saying
/// `normal`, a SNORM one saying it (an earlier build's layout) and a UNORM one not saying it are
/// refused.
#[test]
fn bc5_of_a_tilt_holds_the_normal_as_a_bc5_normal_map() {
    use glam::{Quat, Vec4};
    use qtangent::qmap::MapDecode;
    common::for_seeds("bc5 normal layout", 3, |seed, rng| {
        let map = tangent_map(rng, 64, false);
        let stored = EncodedMap::encode(&map, &Encoding::new(MapSpace::Tangent, MapFormat::Bc5))
            .expect("bc5 holds a tilt");
        assert!(stored.normal_xy && !stored.twist_only, "seed {seed:#x}");
        assert_eq!(stored.decode(), MapDecode::Bc5Normal, "seed {seed:#x}");
        let level = &map.levels[0];
        let w = level.width as usize;
        let normals: Vec<Vec3> = level
            .quats
            .iter()
            .map(|q| Quat::from_xyzw(q.x, q.y, q.z, q.w).normalize() * Vec3::Z)
            .collect();
        let decoded = stored.decode_level(0).expect("decodes");
        assert_eq!(
            stored.to_ktx2().0.format,
            TexelFormat::Bc5Unorm,
            "seed {seed:#x}"
        );
        for (b, block) in stored.levels[0].chunks_exact(16).enumerate() {
            let mut rg = [0f32; 32];
            bcdec_rs::bc5_float(block, &mut rg, 8, false);
            // UNORM: n = 2c − 1.
            rg.iter_mut().for_each(|c| *c = c.mul_add(2.0, -1.0));
            let texel = |k: usize| ((b / (w / 4)) * 4 + k / 4) * w + (b % (w / 4)) * 4 + k % 4;
            for c in 0..2 {
                let want: Vec<f32> = (0..16).map(|k| normals[texel(k)][c]).collect();
                let bytes: Vec<f32> = want
                    .iter()
                    .map(|v| v.mul_add(127.5, 127.5).round())
                    .collect();
                let range = bytes.iter().copied().fold(f32::MIN, f32::max)
                    - bytes.iter().copied().fold(f32::MAX, f32::min);
                // BC5 UNORM's contract (`qmap::bc::encode_bc5_unorm`): within ½ + range/14
                // bytes of 255·v itself (half a byte for the lattice, half a palette step of the
                // block's spread), in units of 1/127.5 of n; + 1e-4 for f32 rounding of glam's
                // rotation.
                let bound = (0.5 + range / 14.0) / 127.5 + 1e-4;
                for k in 0..16 {
                    let got = rg[2 * k + c];
                    assert!(
                        (got - want[k]).abs() <= bound,
                        "seed {seed:#x} block {b} texel {k} channel {c}: {got} against {} (bound {bound})",
                        want[k]
                    );
                }
            }
            for k in 0..16 {
                let [x, y] = [rg[2 * k], rg[2 * k + 1]];
                let n = Vec3::new(x, y, (1.0 - x * x - y * y).max(0.0).sqrt());
                let want = Vec4::from(Quat::from_rotation_arc(Vec3::Z, n));
                // f32 rounding of a dozen operations on unit values: 1e-5.
                let got = decoded[texel(k)];
                assert!(
                    (got - want).abs().max_element() < 1e-5,
                    "seed {seed:#x} texel {}: {got} against {want}",
                    texel(k)
                );
            }
        }
        let (main, _) = stored.to_ktx2();
        let back = EncodedMap::from_ktx2("normal.ktx2", &main, None).expect("reads back");
        assert_eq!(back, stored, "seed {seed:#x}: the KTX2 round trip");
    });
    // Normals past the horizon (blue below ½): z ≥ 0 cannot be rebuilt, so the swing's (x, y).
    let level = NormalMap {
        width: 8,
        height: 8,
        texels: vec![Vec3::new(1.0, 0.0, -0.2).normalize(); 64],
    };
    let below = tangent::bake_cpu(&[level], None, MapFormat::Rgba32Float);
    let stored = EncodedMap::encode(&below, &Encoding::new(MapSpace::Tangent, MapFormat::Bc5))
        .expect("bc5 holds any tilt as the swing");
    assert!(!stored.normal_xy);
    assert_eq!(stored.decode(), qtangent::qmap::MapDecode::Bc5Xy);
    // `normal` names a tangent-space layout: an object-space file saying it is refused.
    let mut rng = rand_pcg::Pcg64Mcg::new(5);
    let map = tangent_map(&mut rng, 16, false);
    let stored = EncodedMap::encode(&map, &Encoding::new(MapSpace::Tangent, MapFormat::Bc5))
        .expect("stores");
    let (mut main, _) = stored.to_ktx2();
    for (k, v) in &mut main.key_values {
        if k == KEY_SPACE {
            *v = b"object\0".to_vec();
        }
    }
    let e = EncodedMap::from_ktx2("odd.ktx2", &main, None).expect_err("normal in object space");
    assert!(
        e.to_string().contains("odd.ktx2") && e.to_string().contains("object"),
        "{e}"
    );
    // The normal layout is BC5 UNORM: a SNORM file saying `normal` (an earlier build's layout)
    // is refused with what to do, and so is UNORM saying anything else.
    let (main, _) = stored.to_ktx2();
    let mut snorm = main.clone();
    snorm.format = TexelFormat::Bc5Snorm;
    let e = EncodedMap::from_ktx2("old.ktx2", &snorm, None).expect_err("SNORM normal layout");
    assert!(
        e.to_string().contains("old.ktx2") && e.to_string().contains("bake it again"),
        "{e}"
    );
    let mut unnamed = main;
    unnamed.key_values.retain(|(k, _)| k != "qtangent.channels");
    let e = EncodedMap::from_ktx2("bare.ktx2", &unnamed, None).expect_err("UNORM without normal");
    assert!(
        e.to_string().contains("bare.ktx2") && e.to_string().contains("UNORM"),
        "{e}"
    );
}
