//! Animations: channels, samplers, key times and values, checked.

use std::path::Path;

use glam::{Vec3, Vec4};

use super::accessor::{checked, ROTATION_OUTPUT, TIMES, VEC3_OUTPUT};
use super::File;
use crate::anim::{Channel, Clip, Interpolation, Property};
use crate::gltf::read::Reader;
use crate::gltf::read::{Accessor, MAX_ELEMENTS};
use crate::gltf::ComponentType;
use crate::mesh::{ErrorKind, MeshError};

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
    name: &Path,
    file: &File<'_>,
    anim: &gltf::Animation<'_>,
    budget: &mut usize,
    skipped: &mut Vec<String>,
) -> Result<Clip, MeshError> {
    use gltf::json::validation::Checked;
    let file_name = name;
    let name = anim
        .name()
        .map_or_else(|| format!("animation {}", anim.index()), str::to_owned);
    let json_channels = file
        .doc
        .as_json()
        .animations
        .get(anim.index())
        .map_or(&[][..], |a| &a.channels[..]);
    let mut channels = Vec::new();
    for (c, channel) in anim.channels().enumerate() {
        let label = format!("animation '{name}' channel {c}");
        let err = |kind| MeshError::at(file_name, &label, kind);
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
        let channel = read_channel(file, &channel, node, property, budget).map_err(err)?;
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
    file: &File<'_>,
    channel: &gltf::animation::Channel<'_>,
    node: usize,
    property: Property,
    budget: &mut usize,
) -> Result<Channel, ErrorKind> {
    let sampler = channel.sampler();
    let (interpolation, per_key) = match sampler.interpolation() {
        gltf::animation::Interpolation::Step => (Interpolation::Step, 1),
        gltf::animation::Interpolation::Linear => (Interpolation::Linear, 1),
        gltf::animation::Interpolation::CubicSpline => (Interpolation::CubicSpline, 3),
    };
    let (input, output) = sampler_accessors(file, &sampler, property, interpolation, per_key)?;
    *budget = budget
        .checked_sub(input.count.saturating_add(output.count))
        .ok_or_else(|| {
            ErrorKind::TooLarge(format!(
                "the file's primitives and animations read more than {MAX_ELEMENTS} accessor \
                 elements in all"
            ))
        })?;
    let times: Vec<f32> = file
        .read(&input, Reader::floats::<1>, "sampler input")?
        .into_iter()
        .map(|[t]| t)
        .collect();
    check_times(&times)?;
    let mut values: Vec<Vec4> = match property {
        Property::Rotation => file
            .read(&output, Reader::floats::<4>, "sampler output")?
            .into_iter()
            .map(Vec4::from)
            .collect(),
        Property::Translation | Property::Scale => file
            .read(&output, Reader::floats::<3>, "sampler output")?
            .into_iter()
            .map(|v| Vec3::from(v).extend(0.0))
            .collect(),
    };
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

/// A sampler's input and output accessors, checked: their types, that integer rotations are
/// normalised, and that there are `per_key` outputs a key time.
fn sampler_accessors(
    file: &File<'_>,
    sampler: &gltf::animation::Sampler<'_>,
    property: Property,
    interpolation: Interpolation,
    per_key: usize,
) -> Result<(Accessor, Accessor), ErrorKind> {
    let s = sampler.index();
    let input = checked(
        file,
        sampler.input().index(),
        &format!("sampler {s} input"),
        &TIMES,
    )?;
    let expect = match property {
        Property::Rotation => &ROTATION_OUTPUT,
        Property::Translation | Property::Scale => &VEC3_OUTPUT,
    };
    let what = format!("sampler {s} output");
    let output = checked(file, sampler.output().index(), &what, expect)?;
    if output.layout.component != ComponentType::Float && !output.layout.normalized {
        return Err(ErrorKind::AccessorType {
            attribute: what,
            accessor: output.index,
            found: format!("{} (not normalized)", output.layout.describe()),
            expected: ROTATION_OUTPUT.describe,
        });
    }
    let expected = input.count.saturating_mul(per_key);
    if output.count != expected {
        return Err(ErrorKind::KeyCountMismatch {
            inputs: input.count,
            outputs: output.count,
            expected,
            interpolation: match interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            },
        });
    }
    Ok((input, output))
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
