//! Unit tests of the animation code: glTF clips and their interpolation, the node hierarchy,
//! pose blending, gait analysis and the walk/run blend with its foot slide.

mod clips;
mod locomotion;
