// The picture comparison of the browser runs (run.mjs, corpus.mjs): PSNR of two RGBA pictures,
// and the angle between two debug-normal pictures.

/** The stage's background (page.js: 0.18, 0.2, 0.24 linear) as 8-bit sRGB. */
export const BACKGROUND = [ 0.18, 0.2, 0.24 ].map( ( x ) => Math.round( 255 * ( x <= 0.0031308 ? 12.92 * x : 1.055 * x ** ( 1 / 2.4 ) - 0.055 ) ) );

/**
 * PSNR (dB) of two base64 RGBA pictures over their RGB, over every pixel (`all`) and over the
 * pixels either picture covers (`model`: differs from `background` by more than one level), and
 * the share of pixels covered.
 */
export function psnr( a, b, background = BACKGROUND ) {

	const A = Buffer.from( a, 'base64' ), B = Buffer.from( b, 'base64' );
	let se = 0, seModel = 0, model = 0;
	for ( let i = 0; i < A.length; i += 4 ) {

		let s = 0, bg = true;
		for ( let c = 0; c < 3; c ++ ) {

			const d = A[ i + c ] - B[ i + c ];
			s += d * d;
			if ( Math.abs( A[ i + c ] - background[ c ] ) > 1 || Math.abs( B[ i + c ] - background[ c ] ) > 1 ) bg = false;

		}

		se += s;
		if ( ! bg ) {

			seModel += s;
			model ++;

		}

	}

	const db = ( e, n ) => e === 0 ? Infinity : 10 * Math.log10( 255 * 255 / ( e / ( 3 * n ) ) );
	return { all: db( se, A.length / 4 ), model: db( seModel, Math.max( model, 1 ) ), coverage: model / ( A.length / 4 ) };

}

/**
 * The angle (degrees) between the normals two debug-normal pictures show (rgb = n·½ + ½, page.js
 * `debugNormal`), over the pixels `a` covers (not `background`): mean and 95th percentile.
 */
export function normalAngles( a, b, background = BACKGROUND ) {

	const A = Buffer.from( a, 'base64' ), B = Buffer.from( b, 'base64' );
	const angles = [];
	for ( let i = 0; i < A.length; i += 4 ) {

		if ( [ 0, 1, 2 ].every( ( c ) => Math.abs( A[ i + c ] - background[ c ] ) <= 1 ) ) continue;
		const n = ( P ) => [ 0, 1, 2 ].map( ( c ) => P[ i + c ] / 127.5 - 1 );
		const [ u, v ] = [ n( A ), n( B ) ];
		const len = ( w ) => Math.max( Math.hypot( ...w ), 1e-9 );
		const dot = u.reduce( ( s, x, c ) => s + x * v[ c ], 0 ) / ( len( u ) * len( v ) );
		angles.push( Math.acos( Math.min( 1, Math.max( - 1, dot ) ) ) * 180 / Math.PI );

	}

	angles.sort( ( x, y ) => x - y );
	const mean = angles.reduce( ( s, x ) => s + x, 0 ) / Math.max( angles.length, 1 );
	return { mean, p95: angles[ Math.floor( angles.length * 0.95 ) ] ?? 0, pixels: angles.length };

}
