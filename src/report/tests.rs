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
        WarningKind::MorphTargetsDropped,
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
