// JavaScript decoders of every `_QTANGENT` format, operation for operation the Rust ones
// (src/format/*.rs, QTangent::to_frame in src/frame.rs): every f32 operation of the Rust code is
// one double operation rounded by Math.fround, which gives the f32 result exactly (+, −, ×, ÷
// and √ of f32 values computed in double and rounded once are correctly rounded f32). The
// browser test checks them bit for bit against frames a Rust test decoded.

import { formatByName } from './formats.js';

const f = Math.fround;
const SQRT_2 = f( Math.SQRT2 );
const FRAC_1_SQRT_2 = f( Math.SQRT1_2 );
const S3X6_LEVELS = 32768;
const S3X4_LEVELS = 812;
const F16X3_HANDEDNESS_BIT = 0x4000;

/** An IEEE half's bits as a number (exact). */
export function halfToFloat( bits ) {

	const sign = bits & 0x8000 ? - 1 : 1;
	const exp = ( bits >> 10 ) & 0x1f;
	const mant = bits & 0x3ff;
	if ( exp === 0 ) return sign * mant * 2 ** - 24;
	if ( exp === 31 ) return mant ? NaN : sign * Infinity;
	return sign * ( 1024 + mant ) * 2 ** ( exp - 25 );

}

const u16 = ( b, o, i ) => b[ o + 2 * i ] | ( b[ o + 2 * i + 1 ] << 8 );
const i16 = ( b, o, i ) => ( u16( b, o, i ) << 16 ) >> 16;

function signW( x, y, z, w ) {

	return { x, y, z, w, reflected: w < 0 };

}

function step( levels ) {

	return f( SQRT_2 / f( levels - 1 ) );

}

function s3Rebuild( index, codes, levels ) {

	const s = step( levels );
	const [ a, b, c ] = codes.map( ( u ) => f( f( f( u ) * s ) - FRAC_1_SQRT_2 ) );
	const sum = f( f( f( a * a ) + f( b * b ) ) + f( c * c ) );
	const largest = f( Math.sqrt( Math.max( f( 1 - sum ), 0 ) ) );
	switch ( index ) {

		case 0: return [ largest, a, b, c ];
		case 1: return [ a, largest, b, c ];
		case 2: return [ a, b, largest, c ];
		default: return [ a, b, c, largest ];

	}

}

const DECODERS = {
	f32x4( b, o ) {

		const v = new DataView( b.buffer, b.byteOffset + o, 16 );
		return signW( v.getFloat32( 0, true ), v.getFloat32( 4, true ), v.getFloat32( 8, true ), v.getFloat32( 12, true ) );

	},
	f16x4( b, o ) {

		const h = [ 0, 1, 2, 3 ].map( ( i ) => halfToFloat( u16( b, o, i ) ) );
		return signW( ...h );

	},
	snorm16x4( b, o ) {

		// As WGSL unpack2x16snorm and a Snorm16 vertex fetch: max(v / 32767, −1).
		const s = [ 0, 1, 2, 3 ].map( ( i ) => Math.max( f( i16( b, o, i ) / 32767 ), - 1 ) );
		return signW( ...s );

	},
	f16x3( b, o ) {

		const xb = u16( b, o, 0 );
		const x = halfToFloat( xb & ~ F16X3_HANDEDNESS_BIT );
		const y = halfToFloat( u16( b, o, 1 ) );
		const z = halfToFloat( u16( b, o, 2 ) );
		const sum = f( f( f( x * x ) + f( y * y ) ) + f( z * z ) );
		const w = f( Math.sqrt( Math.max( f( 1 - sum ), 0 ) ) );
		return { x, y, z, w, reflected: ( xb & F16X3_HANDEDNESS_BIT ) !== 0 };

	},
	smallest3x6( b, o ) {

		// 48 bits little-endian: three 15-bit codes, the dropped index (2 bits), reflected.
		const lo = ( b[ o ] | ( b[ o + 1 ] << 8 ) | ( b[ o + 2 ] << 16 ) | ( b[ o + 3 ] << 24 ) ) >>> 0;
		const hi = b[ o + 4 ] | ( b[ o + 5 ] << 8 );
		const bits = lo + hi * 2 ** 32;
		const field = ( shift, width ) => Math.floor( bits / 2 ** shift ) % 2 ** width;
		const [ x, y, z, w ] = s3Rebuild( field( 45, 2 ), [ field( 0, 15 ), field( 15, 15 ), field( 30, 15 ) ], S3X6_LEVELS );
		return { x, y, z, w, reflected: field( 47, 1 ) === 1 };

	},
	smallest3x4( b, o ) {

		const bits = ( b[ o ] | ( b[ o + 1 ] << 8 ) | ( b[ o + 2 ] << 16 ) | ( b[ o + 3 ] << 24 ) ) >>> 0;
		const packed = bits & ( ( 1 << 29 ) - 1 );
		const codes = [ packed % S3X4_LEVELS, Math.floor( packed / S3X4_LEVELS ) % S3X4_LEVELS, Math.floor( packed / ( S3X4_LEVELS * S3X4_LEVELS ) ) ];
		const [ x, y, z, w ] = s3Rebuild( ( bits >>> 29 ) & 3, codes, S3X4_LEVELS );
		return { x, y, z, w, reflected: bits >>> 31 === 1 };

	},
};

/**
 * Decodes one frame of format `format` (a name or a row of FORMATS) from `bytes` (a Uint8Array)
 * at `offset`: the quaternion as a shader sees it (not normalised) and the reflection.
 */
export function decodeQTangent( format, bytes, offset = 0 ) {

	const name = typeof format === 'string' ? formatByName( format )?.name : format.name;
	const decoder = DECODERS[ name ];
	if ( ! decoder ) throw new Error( `qtangent: unknown _QTANGENT format '${ format?.name ?? format }'` );
	return decoder( bytes, offset );

}

/**
 * The tangent frame of a decoded quaternion, as QTangent::to_frame: normalised, then the matrix
 * of "Quaternions: How"; tangent = column 0, normal = column 2, bitangent = normal × tangent,
 * negated when reflected. Returns three [x, y, z] arrays of f32 values.
 */
export function toFrame( q ) {

	const len2 = f( f( f( f( q.x * q.x ) + f( q.y * q.y ) ) + f( q.z * q.z ) ) + f( q.w * q.w ) );
	const inv = f( 1 / f( Math.sqrt( len2 ) ) );
	const x = f( q.x * inv ), y = f( q.y * inv ), z = f( q.z * inv ), w = f( q.w * inv );
	const x2 = f( x * x ), y2 = f( y * y ), z2 = f( z * z ), w2 = f( w * w );
	const tx = f( 2 * x ), ty = f( 2 * y ), tw = f( 2 * w );
	const xy = f( tx * y ), xz = f( tx * z ), yz = f( ty * z );
	const wx = f( tw * x ), wy = f( tw * y ), wz = f( tw * z );
	const tangent = [ f( f( f( w2 + x2 ) - y2 ) - z2 ), f( xy + wz ), f( xz - wy ) ];
	const normal = [ f( xz + wy ), f( yz - wx ), f( f( f( w2 - x2 ) - y2 ) + z2 ) ];
	const h = q.reflected ? - 1 : 1;
	const [ nx, ny, nz ] = normal;
	const [ ux, uy, uz ] = tangent;
	const bitangent = [
		f( f( f( ny * uz ) - f( uy * nz ) ) * h ),
		f( f( f( nz * ux ) - f( uz * nx ) ) * h ),
		f( f( f( nx * uy ) - f( ux * ny ) ) * h ),
	];
	return { normal, tangent, bitangent };

}

/**
 * Every frame of a `_QTANGENT` stream: `bytes` holds `count` elements of `stride` bytes, the
 * format's bytes first in each. Returns three.js-ready `normal` (xyz) and `tangent` (xyz and the
 * handedness in w, as glTF's TANGENT) Float32Arrays.
 */
export function decodeFrames( format, bytes, count, stride ) {

	const normal = new Float32Array( 3 * count );
	const tangent = new Float32Array( 4 * count );
	for ( let i = 0; i < count; i ++ ) {

		const q = decodeQTangent( format, bytes, i * stride );
		const fr = toFrame( q );
		normal.set( fr.normal, 3 * i );
		tangent.set( fr.tangent, 4 * i );
		tangent[ 4 * i + 3 ] = q.reflected ? - 1 : 1;

	}

	return { normal, tangent };

}
