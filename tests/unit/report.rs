use super::{Warning, WarningKind};

/// Every kind of the "Loading meshes" section (written by `fmt_loading`) and of "Packing glTF"
/// says something, and a warning puts its place first.
#[test]
fn every_mesh_and_pack_kind_says_what_happened() {
    let s = |x: &str| x.to_string();
    let kinds = [
        WarningKind::UnknownRequiredExtensions {
            extensions: vec![s("EXT_a"), s("EXT_b")],
        },
        WarningKind::ChannelWithoutTarget,
        WarningKind::MorphWeightChannelsSkipped {
            count: 5,
            first: vec![s("a"), s("b"), s("c")],
        },
        WarningKind::MatrixWithZeroAxis,
        WarningKind::MatrixNotTrs,
        WarningKind::TextureWithoutImage {
            texture: "normal",
            index: 2,
        },
        WarningKind::TextureTransformOnOtherSet {
            texture: "normal",
            set: 1,
        },
        WarningKind::TextureTransformsDiffer {
            transforms: vec![s("normal none")],
        },
        WarningKind::PrimitiveSkipped { why: s("LINES") },
        WarningKind::PrimitivesSkipped {
            count: 3,
            first: vec![s("x (LINES)"), s("y (LINES)"), s("z (LINES)")],
        },
        WarningKind::PartialTriangleDropped {
            indices: 4,
            dropped: 1,
        },
        WarningKind::NormalsRegenerated { count: 2 },
        WarningKind::TangentsIgnored { count: 2 },
        WarningKind::MaterialLibraryFromMemory {
            library: s("a.mtl"),
        },
        WarningKind::MaterialLibraryUnreadable {
            library: s("a.mtl"),
            error: s("gone"),
        },
        WarningKind::MaterialLibraryInvalid {
            library: s("a.mtl"),
            error: s("bad"),
        },
        WarningKind::ObjectWithoutFaces,
        WarningKind::PointsAndLinesSkipped { count: 2 },
        WarningKind::PrimitiveDropped,
        WarningKind::UnreadAttributeDropped { primitives: 2 },
        WarningKind::TangentsOrthonormalised {
            count: 3,
            largest_degrees: 62.0,
        },
        WarningKind::EmptyMeshRemoved,
    ];
    for kind in kinds {
        let line = kind.to_string();
        assert!(line.len() > 10, "{kind:?} says {line:?}");
        assert_eq!(
            Warning::new("mesh 'M'", kind).to_string(),
            format!("mesh 'M': {line}")
        );
    }
    let more = WarningKind::MorphWeightChannelsSkipped {
        count: 5,
        first: vec![s("a"), s("b"), s("c")],
    };
    assert!(
        more.to_string().ends_with(": a, b, c, and 2 more"),
        "{more}"
    );
    let all = WarningKind::PrimitivesSkipped {
        count: 3,
        first: vec![s("x"), s("y"), s("z")],
    };
    assert!(all.to_string().ends_with(": x, y, z"), "{all}");
}

/// The maps', renderer's and skinning's kinds say what happened, with their numbers.
#[test]
fn every_map_render_and_skin_kind_says_what_happened() {
    let cases = [
        (WarningKind::PrimitiveWithoutUvs, "no UVs"),
        (
            WarningKind::MaterialWithoutUvs { primitives: 3 },
            "none of its 3",
        ),
        (
            WarningKind::BakeTextureOnOtherSet {
                texture: "normal",
                set: 1,
            },
            "normal texture reads TEXCOORD_1",
        ),
        (
            WarningKind::MapRepacked {
                overlap_percent: 12,
            },
            "12%",
        ),
        (
            WarningKind::Bc5CannotHold { object_space: true },
            "not an object-space map; stored as bc7",
        ),
        (
            WarningKind::Bc5CannotHold {
                object_space: false,
            },
            "not a tilt and a twist (x, y, z ≠ 0); stored as bc5x2",
        ),
        (
            WarningKind::NotBlockSized {
                format: "bc7",
                width: 250,
                height: 100,
            },
            "bc7 needs sides that are multiples of 4, not 250×100",
        ),
        (
            WarningKind::MapNotInFolder {
                file: "a.ktx2".into(),
                folder: "maps".into(),
            },
            "no map a.ktx2 in maps",
        ),
        (WarningKind::NoQuaternionMap, "no quaternion map"),
        (
            WarningKind::TextureOnOtherSet {
                texture: "normal",
                set: 2,
            },
            "the normal texture reads UV set 2",
        ),
        (WarningKind::InstanceSkipped { node: 7 }, "node 7"),
        (WarningKind::SkinnedInBindPose, "bind pose"),
        (
            WarningKind::BcDecodedAtUpload { format: "bc5" },
            "bc5 maps are decoded",
        ),
        (
            WarningKind::InfluencesDropped { count: 4, max: 8 },
            "4 influences beyond 8",
        ),
    ];
    for (kind, says) in cases {
        let line = kind.to_string();
        assert!(line.contains(says), "{kind:?} says {line:?}, not {says:?}");
    }
}
