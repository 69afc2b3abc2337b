//! Writing quaternion maps: OpenEXR (RGBA + handedness, all mips) and 8-bit PNG previews.
