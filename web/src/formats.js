// The vertex formats of `_QTANGENT`: one row each, as qtangent's Rust table (src/format/mod.rs)
// holds them. `tests/it/web.rs` writes the Rust table's figures and the accessor layout `pack`
// writes for each format, and the browser test checks this table against them field by field.

/** glTF componentType FLOAT. */
export const FLOAT = 5126;
/** glTF componentType SHORT. */
export const SHORT = 5122;

/**
 * Every format, in the Rust table's order.
 * - `bytes`: the encoded frame's size (6-byte formats sit in 8-byte elements).
 * - `maxErrorDeg`: the bound on the decoded normal, tangent and bitangent, degrees.
 * - `componentType`, `itemSize`, `normalized`: its `_QTANGENT` accessor. No two formats share a
 *   layout, so a file whose `QTANGENT_frames` a tool dropped still names its format.
 * - `aliases`: earlier names, read too.
 */
export const FORMATS = Object.freeze([
	{ name: 'f32x4', aliases: [], bytes: 16, maxErrorDeg: 0.01, componentType: FLOAT, itemSize: 4, normalized: false },
	{ name: 'f16x4', aliases: [], bytes: 8, maxErrorDeg: 0.05, componentType: SHORT, itemSize: 4, normalized: false },
	{ name: 'snorm16x4', aliases: [], bytes: 8, maxErrorDeg: 0.004, componentType: SHORT, itemSize: 4, normalized: true },
	{ name: 'f16x3', aliases: [ 'f16x3-seed' ], bytes: 6, maxErrorDeg: 3.34, componentType: SHORT, itemSize: 3, normalized: false },
	{ name: 'smallest3x6', aliases: [ 'smallest3-6B' ], bytes: 6, maxErrorDeg: 0.007, componentType: SHORT, itemSize: 3, normalized: true },
	{ name: 'smallest3x4', aliases: [ 'smallest3-4B' ], bytes: 4, maxErrorDeg: 0.25, componentType: SHORT, itemSize: 2, normalized: false },
].map( ( f, code ) => Object.freeze( { ...f, code } ) ) );

/** The format named `name` (canonical or alias, ASCII case-insensitive), or undefined. */
export function formatByName( name ) {

	const n = String( name ).toLowerCase();
	return FORMATS.find( ( f ) => f.name === n || f.aliases.some( ( a ) => a.toLowerCase() === n ) );

}

/** The format whose accessor layout this is, or undefined. */
export function formatByLayout( componentType, itemSize, normalized ) {

	return FORMATS.find( ( f ) => f.componentType === componentType && f.itemSize === itemSize && f.normalized === !! normalized );

}
