// Types of qtangent-three's main entry: the format table and the decoders, no peer dependency.

export { FORMATS, FLOAT, SHORT, formatByLayout, formatByName } from './formats.js';
export type { Format, FormatName } from './formats.js';
export { decodeFrames, decodeQTangent, halfToFloat, toFrame } from './decode.js';
export type { DecodedQTangent, Frame, Vec3 } from './decode.js';
