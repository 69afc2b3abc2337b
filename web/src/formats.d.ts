// Types of formats.js: the `_QTANGENT` vertex formats, one row each, as qtangent's Rust table.

/** glTF componentType FLOAT (5126). */
export declare const FLOAT: 5126;
/** glTF componentType SHORT (5122). */
export declare const SHORT: 5122;

/** The canonical name of a `_QTANGENT` format. */
export type FormatName = 'f32x4' | 'f16x4' | 'snorm16x4' | 'f16x3' | 'smallest3x6' | 'smallest3x4';

/** One row of the format table. */
export interface Format {
	/** The canonical name (what `pack --format` and `QTANGENT_frames.format` say). */
	readonly name: FormatName;
	/** Earlier names, read too. */
	readonly aliases: readonly string[];
	/** The encoded frame's size in bytes (6-byte formats sit in 8-byte elements). */
	readonly bytes: number;
	/** The bound on the decoded normal, tangent and bitangent, degrees. */
	readonly maxErrorDeg: number;
	/** The `_QTANGENT` accessor's componentType. */
	readonly componentType: typeof FLOAT | typeof SHORT;
	/** The `_QTANGENT` accessor's component count. */
	readonly itemSize: 2 | 3 | 4;
	/** Whether the accessor is normalized. */
	readonly normalized: boolean;
	/** The format's code: its position in {@link FORMATS} (the shaders' `QT_FORMAT`). */
	readonly code: number;
}

/** Every format, in the Rust table's order. */
export declare const FORMATS: readonly Format[];

/** The format named `name` (canonical or alias, ASCII case-insensitive), or undefined. */
export declare function formatByName( name: string ): Format | undefined;

/** The format whose accessor layout this is, or undefined. */
export declare function formatByLayout( componentType: number, itemSize: number, normalized?: boolean ): Format | undefined;
