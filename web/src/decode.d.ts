// Types of decode.js: the `_QTANGENT` decoders, operation for operation the Rust ones.

import type { Format, FormatName } from './formats.js';

/** A decoded quaternion as a shader sees it (not normalised) and the frame's reflection. */
export interface DecodedQTangent {
	x: number;
	y: number;
	z: number;
	w: number;
	/** The frame is mirrored (bitangent = −cross(normal, tangent)). */
	reflected: boolean;
}

/** A vector as [x, y, z] of f32 values. */
export type Vec3 = [ number, number, number ];

/** A tangent frame. */
export interface Frame {
	normal: Vec3;
	tangent: Vec3;
	bitangent: Vec3;
}

/** An IEEE half's bits as a number (exact). */
export declare function halfToFloat( bits: number ): number;

/**
 * Decodes one frame of `format` (a name, canonical or alias, or a row of FORMATS) from `bytes`
 * at `offset`. Throws on an unknown format.
 */
export declare function decodeQTangent( format: FormatName | string | Format, bytes: Uint8Array, offset?: number ): DecodedQTangent;

/** The tangent frame of a decoded quaternion, as qtangent's `QTangent::to_frame`. */
export declare function toFrame( q: DecodedQTangent ): Frame;

/**
 * Every frame of a `_QTANGENT` stream (`count` elements of `stride` bytes): three.js-ready
 * `normal` (xyz) and `tangent` (xyz, handedness in w, as glTF's TANGENT).
 */
export declare function decodeFrames( format: FormatName | string | Format, bytes: Uint8Array, count: number, stride: number ): { normal: Float32Array; tangent: Float32Array };
