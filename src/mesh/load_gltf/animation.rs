//! Animations: channels, samplers, key times and values, checked.

use std::path::Path;

use glam::{Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};

use super::accessor::{check_accessor, Expect, FLOAT_BYTE_SHORT, MAX_ELEMENTS};
use crate::anim::{Channel, Clip, Interpolation, Property};
use crate::mesh::{ErrorKind, MeshError};

pub(super) const TIMES: Expect = Expect {
    dims: Dimensions::Scalar,
    types: &[DataType::F32],
    describe: "SCALAR float",
};
pub(super) const VEC3_OUTPUT: Expect = Expect {
    dims: Dimensions::Vec3,
    types: &[DataType::F32],
    describe: "VEC3 float",
};
pub(super) const ROTATION_OUTPUT: Expect = Expect {
    dims: Dimensions::Vec4,
    types: FLOAT_BYTE_SHORT,
    describe: "VEC4 float or normalized byte or short",
};

/// Animation indices, checked before the gltf crate's validation: a channel's target node and
/// path (which that validation leaves unchecked and the crate's accessors unwrap), and the
/// sampler and accessor indices (which it reports by JSON path only), so the error names the
/// animation and channel: `(animation 'Walk' channel 3, problem)`.
pub(super) fn check_animation_indices(root: &gltf::json::Root) -> Result<(), (String, ErrorKind)> {
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
pub(super) fn read_animation(
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

/// Reads and checks one channel's sampler (target already checked).
pub(super) fn read_channel(
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
pub(super) fn check_times(times: &[f32]) -> Result<(), ErrorKind> {
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
