// qtangent-three without peers: the `_QTANGENT` format table and decoders. The three.js plugin is
// `qtangent-three/three`, the glTF-Transform extension `qtangent-three/gltf-transform`.

export { FORMATS, FLOAT, SHORT, formatByLayout, formatByName } from './formats.js';
export { decodeFrames, decodeQTangent, halfToFloat, toFrame } from './decode.js';
