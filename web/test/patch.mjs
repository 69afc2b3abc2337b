// The plugin's shader patches (`patchShader` in src/three.js) against the installed three.js, in
// node: every patch applies to every three.js shader the plugin's materials compile to, and a
// chunk that no longer holds what a patch replaces (a three.js release that rewords it) is an
// error naming the chunk, never a path silently turned off. `node web/test/patch.mjs`; run by
// the Rust test `web::shader_patches_are_checked` (tests/it/web.rs). Prints one line; exits 1 on
// the first failure.

import assert from 'node:assert/strict';
import { REVISION, ShaderChunk, ShaderLib } from 'three';
import { patchShader } from '../src/three.js';

const LIT = [ 'standard', 'physical', 'lambert', 'phong', 'toon', 'matcap', 'normal' ];
const CASES = [
	{ format: 5 },
	{ map: 'tangent' },
	{ map: 'object' },
	{ format: 5, map: 'tangent', twist: {} },
];

const shaderOf = ( id ) => ( {
	shaderID: id,
	vertexShader: ShaderLib[ id ].vertexShader,
	fragmentShader: ShaderLib[ id ].fragmentShader,
	uniforms: {},
} );

let checks = 0;

// Every case on every shader the plugin's glTF materials use (standard, physical; basic for
// KHR_materials_unlit) and three.js' other lit ones: applied, and what it replaces gone.
for ( const id of [ ...LIT, 'basic' ] ) {

	for ( const q of CASES ) {

		const shader = shaderOf( id );
		patchShader( shader, q );
		const what = `${ id } ${ JSON.stringify( q ) }`;
		if ( q.format !== undefined ) {

			assert.ok( shader.vertexShader.includes( 'QtFrame qtf = qtFrame();' ), what );
			assert.ok( ! shader.vertexShader.includes( '#include <beginnormal_vertex>' ), what );
			if ( LIT.includes( id ) ) {

				assert.ok( ! shader.vertexShader.includes( '#include <normal_vertex>' ), what );
				assert.ok( shader.vertexShader.includes( 'qtf.h' ), what );

			}

		}

		if ( q.map && LIT.includes( id ) ) {

			assert.ok( ! shader.fragmentShader.includes( '#include <normal_fragment_maps>' ), what );
			if ( q.twist ) assert.ok( shader.uniforms.qtTwistMap, what );
			if ( q.map === 'tangent' && [ 'standard', 'physical' ].includes( id ) ) {

				assert.ok( shader.fragmentShader.includes( 'vec2( length( anisotropyVector ) * anisotropyPolar.b, 0.0 )' ), what );

			}

		}

		if ( q.map && ! LIT.includes( id ) ) {

			assert.equal( shader.fragmentShader, `#undef FLAT_SHADED\n${ ShaderLib[ id ].fragmentShader }`, `${ what }: an unlit shader takes no map` );

		}

		checks ++;

	}

}

// Each text a patch replaces, taken out of the physical shader or out of the chunk it patches:
// an error naming where, and the three.js release.
const ALL = { format: 5, map: 'tangent', twist: {} };
const SHADER_TEXTS = [
	[ 'vertexShader', '#include <common>', 'the vertex shader' ],
	[ 'vertexShader', '#include <beginnormal_vertex>', 'the vertex shader' ],
	[ 'vertexShader', '#include <normal_vertex>', 'the vertex shader' ],
	[ 'fragmentShader', '#include <normalmap_pars_fragment>', 'the fragment shader' ],
	[ 'fragmentShader', '#include <normal_fragment_maps>', 'the fragment shader' ],
	[ 'fragmentShader', '#include <lights_physical_fragment>', 'the fragment shader' ],
];
for ( const [ stage, text, where ] of SHADER_TEXTS ) {

	const shader = shaderOf( 'physical' );
	shader[ stage ] = shader[ stage ].replaceAll( text, '' );
	assert.throws( () => patchShader( shader, ALL ), ( e ) =>
		e.message.includes( where ) && e.message.includes( text ) && e.message.includes( `r${ REVISION }` ), `${ text } missing` );
	checks ++;

}

const CHUNK_TEXTS = [
	[ 'normal_vertex', 'tangent.w' ],
	[ 'lights_physical_fragment', 'anisotropyMat * normalize( 2.0 * anisotropyPolar.rg - vec2( 1.0 ) ) * anisotropyPolar.b' ],
];
for ( const [ chunk, text ] of CHUNK_TEXTS ) {

	const original = ShaderChunk[ chunk ];
	assert.ok( original.includes( text ), `three.js r${ REVISION }'s ${ chunk } holds ${ text }` );
	ShaderChunk[ chunk ] = original.replaceAll( text, 'reworded' );
	try {

		assert.throws( () => patchShader( shaderOf( 'physical' ), ALL ), ( e ) =>
			e.message.includes( `ShaderChunk.${ chunk }` ) && e.message.includes( text ), `${ chunk } reworded` );

	} finally {

		ShaderChunk[ chunk ] = original;

	}

	checks ++;

}

console.log( `shader patches: ${ checks } checks passed on three.js r${ REVISION }` );
