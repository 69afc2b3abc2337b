//! The format table against the `ktx2` crate's numbers and DFD generator, and the level sizes
//! against the spec's formula.

use ::ktx2::dfd::Basic;
use ::ktx2::Format;

use super::TexelFormat;
use crate::ktx2::full_mip_count;

/// Each format and the `ktx2` crate's name for it.
const CRATE_NAMES: [(TexelFormat, Format); 9] = [
    (TexelFormat::R8Snorm, Format::R8_SNORM),
    (TexelFormat::Rgba8Unorm, Format::R8G8B8A8_UNORM),
    (TexelFormat::Rgba8Snorm, Format::R8G8B8A8_SNORM),
    (TexelFormat::Rgba16Snorm, Format::R16G16B16A16_SNORM),
    (TexelFormat::Rgba16Float, Format::R16G16B16A16_SFLOAT),
    (TexelFormat::Rgba32Float, Format::R32G32B32A32_SFLOAT),
    (TexelFormat::Bc5Unorm, Format::BC5_UNORM_BLOCK),
    (TexelFormat::Bc5Snorm, Format::BC5_SNORM_BLOCK),
    (TexelFormat::Bc7Unorm, Format::BC7_UNORM_BLOCK),
];

#[test]
fn format_numbers_are_vulkans_and_the_specs() {
    assert_eq!(TexelFormat::ALL.to_vec(), CRATE_NAMES.map(|r| r.0).to_vec());
    for (f, crate_format) in CRATE_NAMES {
        let vk = crate_format.value();
        assert_eq!(f.vk_format(), vk, "{f}");
        assert_eq!(TexelFormat::from_vk_format(vk), Some(f));
        // typeSize, block size and bytes per block as the ktx2 crate's DFD generator has them.
        let (basic, type_size) = Basic::from_format(crate_format).expect("a DFD");
        assert_eq!(f.type_size(), type_size, "{f}");
        let [w, h, ..] = basic.texel_block_dimensions.map(|d| u32::from(d.get()));
        assert_eq!(f.block_size(), (w, h), "{f}");
        let bytes = u32::from(basic.bytes_planes[0]);
        assert_eq!(f.bytes_per_block(), bytes, "{f}");
        // lcm(bytes per block, 4), by the definition.
        let lcm = (1..=4)
            .map(|k| k * bytes)
            .find(|m| m % 4 == 0)
            .expect("4 · bytes is one");
        assert_eq!(f.mip_alignment(), lcm as usize, "{f}");
    }
    for v in [0, 9, 36, 91, 98, 140, 146, u32::MAX] {
        assert_eq!(TexelFormat::from_vk_format(v), None, "vkFormat {v}");
    }
    let sizes = [
        (TexelFormat::Bc5Snorm, 64, 64, 4096),
        (TexelFormat::Bc5Snorm, 1, 1, 16),
        (TexelFormat::Bc7Unorm, 5, 3, 32),
        (TexelFormat::Rgba16Float, 3, 5, 120),
        (TexelFormat::R8Snorm, 13, 7, 91),
        (TexelFormat::Rgba32Float, 2, 1, 32),
        (TexelFormat::Rgba8Snorm, 0, 7, 0),
    ];
    for (f, w, h, bytes) in sizes {
        assert_eq!(f.level_bytes(w, h), bytes, "{w}×{h} {f}");
    }
    let full = [
        ((64, 32), 7),
        ((1, 1), 1),
        ((13, 7), 4),
        ((5, 300), 9),
        ((0, 0), 0),
    ];
    for ((w, h), n) in full {
        assert_eq!(full_mip_count(w, h), n, "{w}×{h}");
    }
}

#[test]
fn names_parse_back() {
    for f in TexelFormat::ALL {
        assert_eq!(f.name().parse::<TexelFormat>(), Ok(f));
    }
    assert!("bc6h".parse::<TexelFormat>().is_err());
}
