//! Vertex attributes of any component type read as `f32`: float, or (un)signed byte or short,
//! normalised or not, as KHR_mesh_quantization allows. The `gltf` crate's `read_positions` and
//! `read_normals` take float only.
//!
//! Normalised integers follow glTF 2.0 §3.11: byte `max(c / 127, −1)`, unsigned byte `c / 255`,
//! short `max(c / 32767, −1)`, unsigned short `c / 65535`. Integers that are not normalised are
//! read as their value (KHR_mesh_quantization: the dequantisation lives elsewhere, in a node
//! transform or a KHR_texture_transform). An accessor with neither a buffer view nor a sparse
//! part is all zeros (glTF 2.0 §3.6.2.4); sparse accessors go through the crate's iterator,
//! which substitutes the sparse values.

use gltf::accessor::{util::Item, DataType, Iter};

use crate::mesh::ErrorKind;

/// One component converted to `f32`.
trait Component: Copy {
    fn to_f32(self, normalized: bool) -> f32;
}

impl Component for f32 {
    fn to_f32(self, _: bool) -> f32 {
        self
    }
}

/// An integer component: normalised, `c / max`, clamped at −1 for the signed types (the most
/// negative value, −128 or −32768, maps to −1 like −127 and −32767).
macro_rules! integer_component {
    ($($t:ty => $max:expr),*) => {$(
        impl Component for $t {
            fn to_f32(self, normalized: bool) -> f32 {
                if normalized {
                    (f32::from(self) / $max).max(-1.0)
                } else {
                    f32::from(self)
                }
            }
        }
    )*};
}

integer_component!(i8 => 127.0, u8 => 255.0, i16 => 32767.0, u16 => 65535.0);

/// Whether the accessor stores nothing: no buffer view and no sparse part (all zeros).
pub(super) fn is_all_zeros(acc: &gltf::Accessor<'_>) -> bool {
    acc.view().is_none() && acc.sparse().is_none()
}

/// Reads an accessor of `N` components (checked beforehand by
/// [`super::accessor::check_attribute`]) as `f32`.
///
/// # Errors
/// A component type other than float, byte or short (unsigned int is not a vertex attribute
/// type), or data the crate cannot read (the checks make that a crate change).
pub(super) fn read_f32<const N: usize>(
    acc: &gltf::Accessor<'_>,
    buffers: &[gltf::buffer::Data],
    attribute: &str,
) -> Result<Vec<[f32; N]>, ErrorKind>
where
    [f32; N]: Item,
    [i8; N]: Item,
    [u8; N]: Item,
    [i16; N]: Item,
    [u16; N]: Item,
{
    if is_all_zeros(acc) {
        return Ok(vec![[0.0; N]; acc.count()]);
    }
    let normalized = acc.normalized();
    match acc.data_type() {
        DataType::F32 => convert::<f32, N>(acc, buffers, attribute, false),
        DataType::I8 => convert::<i8, N>(acc, buffers, attribute, normalized),
        DataType::U8 => convert::<u8, N>(acc, buffers, attribute, normalized),
        DataType::I16 => convert::<i16, N>(acc, buffers, attribute, normalized),
        DataType::U16 => convert::<u16, N>(acc, buffers, attribute, normalized),
        DataType::U32 => Err(ErrorKind::AccessorType {
            attribute: attribute.to_owned(),
            accessor: acc.index(),
            found: "unsigned int".into(),
            expected: "float, byte or short",
        }),
    }
}

fn convert<T: Component, const N: usize>(
    acc: &gltf::Accessor<'_>,
    buffers: &[gltf::buffer::Data],
    attribute: &str,
    normalized: bool,
) -> Result<Vec<[f32; N]>, ErrorKind>
where
    [T; N]: Item,
{
    let iter = Iter::<[T; N]>::new(acc.clone(), |b: gltf::Buffer<'_>| {
        buffers.get(b.index()).map(|d| &d.0[..])
    })
    .ok_or_else(|| ErrorKind::Gltf(format!("the gltf crate could not read {attribute}")))?;
    Ok(iter.map(|v| v.map(|c| c.to_f32(normalized))).collect())
}

#[cfg(test)]
mod tests {
    use super::Component;

    /// glTF 2.0 §3.11's table, at both ends and the middle of each type.
    #[test]
    fn normalisation_follows_the_spec_table() {
        assert_eq!(127i8.to_f32(true), 1.0);
        assert_eq!((-127i8).to_f32(true), -1.0);
        assert_eq!((-128i8).to_f32(true), -1.0, "−128/127 clamps to −1");
        assert_eq!(255u8.to_f32(true), 1.0);
        assert_eq!(0u8.to_f32(true), 0.0);
        assert_eq!(32767i16.to_f32(true), 1.0);
        assert_eq!((-32768i16).to_f32(true), -1.0);
        assert_eq!(65535u16.to_f32(true), 1.0);
        assert_eq!(32768u16.to_f32(true), 32768.0 / 65535.0);
        // Not normalised: the integer itself.
        assert_eq!((-128i8).to_f32(false), -128.0);
        assert_eq!(65535u16.to_f32(false), 65535.0);
        assert_eq!((-32768i16).to_f32(false), -32768.0);
        assert_eq!(2.5f32.to_f32(true), 2.5);
    }
}
