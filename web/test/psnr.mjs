// The picture comparison of the browser runs (run.mjs, corpus.mjs): PSNR of two RGBA pictures.

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
