// The browser side of web/test/run.mjs: renders a glTF file with three.js, with or without
// QTangentPlugin, from a camera and lights that depend only on the case, and hands the pixels back.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { QTangentPlugin, decodeBc5, gpuBytes } from '../src/three.js';
import { FORMATS } from '../src/formats.js';
import { decodeQTangent, toFrame } from '../src/decode.js';

// The three.js release served (the browser test runs on the newest and the oldest supported).
window.qtThreeRevision = THREE.REVISION;
const canvas = document.getElementById( 'c' );
// ?renderer=webgpu: three.js' WebGPURenderer on its WebGL2 backend (node materials) and
// qtangent-three/webgpu's plugin; otherwise WebGLRenderer and qtangent-three/three's.
const nodes = new URLSearchParams( location.search ).get( 'renderer' ) === 'webgpu';
let renderer, Plugin = QTangentPlugin, tsl;
if ( nodes ) {

	const { WebGPURenderer } = await import( 'three/webgpu' );
	tsl = await import( 'three/tsl' );
	renderer = new WebGPURenderer( { canvas, antialias: true, forceWebGL: true } );
	await renderer.init();
	window.qtBackend = renderer.backend.isWebGLBackend ? 'WebGL2' : 'WebGPU';
	( { QTangentPlugin: Plugin } = await import( '../src/three-webgpu.js' ) );

} else renderer = new THREE.WebGLRenderer( { canvas, antialias: true, preserveDrawingBuffer: true } );

renderer.setPixelRatio( 1 );
renderer.setSize( 512, 512, false );
const ktx2 = new KTX2Loader().setTranscoderPath( '/node_modules/three/examples/jsm/libs/basis/' ).detectSupport( renderer );

/** Loads `url`; `plugin`: null (three.js alone) or the plugin's options. */
async function load( url, plugin ) {

	const loader = new GLTFLoader().setKTX2Loader( ktx2 ).setMeshoptDecoder( MeshoptDecoder );
	// The WebGPU plugin decodes the frames on load (its only mode).
	const options = nodes ? { ...plugin, mode: undefined } : plugin;
	if ( plugin ) loader.register( ( parser ) => new Plugin( parser, { renderer, ktx2Loader: ktx2, ...options } ) );
	return loader.loadAsync( url );

}

/** The `debugNormal` picture with node materials: the shading normal (view space) as rgb = n·½ + ½. */
function debugNormalNodes( gltf ) {

	gltf.scene.traverse( ( o ) => {

		if ( ! o.material ) return;
		const m = o.material.isNodeMaterial ? o.material : renderer.library.fromMaterial( o.material );
		// The renderer's output transform (linear to sRGB) undone first, so the canvas holds n·½ + ½.
		m.fragmentNode = tsl.vec4( tsl.sRGBTransferEOTF( tsl.normalView.normalize().mul( 0.5 ).add( 0.5 ) ), 1 );
		m.needsUpdate = true;
		o.material = m;

	} );

}

/**
 * A scene for `gltf` and its camera: `view` says where the camera is, relative to `box` (`dir`,
 * `distance` in radii; 30° field of view), or exactly (`eye`, `target`, `fov`: the camera
 * `qtangent render` prints, so that both draw one view).
 */
function stage( gltf, box, view ) {

	const scene = new THREE.Scene();
	scene.background = new THREE.Color( 0.18, 0.2, 0.24 );
	scene.add( new THREE.HemisphereLight( 0xdde8ff, 0x403830, 1.2 ) );
	const key = new THREE.DirectionalLight( 0xffffff, 3.0 );
	key.position.set( ...view.light );
	scene.add( key );
	const rim = new THREE.DirectionalLight( 0xffeedd, 1.2 );
	rim.position.set( - 2, 1, - 1 );
	scene.add( rim );
	scene.add( gltf.scene );
	const center = new THREE.Vector3( ...box.center );
	const camera = new THREE.PerspectiveCamera( view.fov ?? 30, 1, box.radius / 50, box.radius * 50 );
	if ( view.eye ) {

		camera.position.set( ...view.eye );
		camera.lookAt( new THREE.Vector3( ...view.target ) );
		return { scene, camera };

	}

	const dir = new THREE.Vector3( ...view.dir ).normalize();
	camera.position.copy( center ).addScaledVector( dir, box.radius * view.distance );
	camera.lookAt( center );
	return { scene, camera };

}

function pose( gltf, time ) {

	if ( time === undefined || gltf.animations.length === 0 ) return;
	const mixer = new THREE.AnimationMixer( gltf.scene );
	mixer.clipAction( gltf.animations[ 0 ] ).play();
	mixer.setTime( time );
	gltf.scene.updateMatrixWorld( true );

}

function boxOf( object ) {

	object.updateMatrixWorld( true );
	const b = new THREE.Box3().setFromObject( object );
	const s = b.getBoundingSphere( new THREE.Sphere() );
	return { center: s.center.toArray(), radius: s.radius };

}

function pixels() {

	if ( nodes ) {

		// WebGPURenderer's canvas read through a 2D canvas, rows turned bottom first as readPixels'.
		const c2 = document.createElement( 'canvas' );
		c2.width = c2.height = 512;
		const ctx = c2.getContext( '2d' );
		ctx.translate( 0, 512 );
		ctx.scale( 1, - 1 );
		ctx.drawImage( canvas, 0, 0 );
		const data = new Uint8Array( ctx.getImageData( 0, 0, 512, 512 ).data.buffer );
		let s = '';
		for ( let i = 0; i < data.length; i += 0x8000 ) s += String.fromCharCode.apply( null, data.subarray( i, i + 0x8000 ) );
		return btoa( s );

	}

	const gl = renderer.getContext();
	const data = new Uint8Array( 512 * 512 * 4 );
	gl.readPixels( 0, 0, 512, 512, gl.RGBA, gl.UNSIGNED_BYTE, data );
	let s = '';
	for ( let i = 0; i < data.length; i += 0x8000 ) s += String.fromCharCode.apply( null, data.subarray( i, i + 0x8000 ) );
	return btoa( s );

}

window.qt = {

	/** Renders `url`; returns the pixels (base64 RGBA, bottom row first), the box and the bytes. */
	async render( url, { plugin = null, box = null, view, time, anisotropy, anisotropyMap = true, debugNormal = false } ) {

		const gltf = await load( url, plugin );
		// `debugNormal`: each material draws its shading normal (view space, after the normal map
		// or the plugin's map), rgb = n·½ + ½, instead of its lit colour: the frame stage alone.
		if ( debugNormal && nodes ) debugNormalNodes( gltf );
		else if ( debugNormal ) gltf.scene.traverse( ( o ) => {

			if ( ! o.material ) return;
			const m = o.material;
			const [ compile, key ] = [ m.onBeforeCompile, m.customProgramCacheKey ];
			m.onBeforeCompile = function ( shader, r ) {

				compile.call( this, shader, r );
				shader.fragmentShader = shader.fragmentShader.replace( '#include <dithering_fragment>',
					'#include <dithering_fragment>\n\tgl_FragColor = vec4( normalize( normal ) * 0.5 + 0.5, 1.0 );' );

			};

			m.customProgramCacheKey = function () {

				return key.call( this ) + '|qt-debug-normal';

			};

			m.needsUpdate = true;

		} );
		// `anisotropy`: a strength for every material (0: isotropic, to judge the normals alone);
		// `anisotropyMap: false`: no anisotropy texture (the direction is the vertex tangent's).
		gltf.scene.traverse( ( o ) => {

			if ( anisotropy !== undefined && o.material?.anisotropy !== undefined ) o.material.anisotropy = anisotropy;
			if ( ! anisotropyMap && o.material?.anisotropyMap ) {

				o.material.anisotropyMap = null;
				o.material.needsUpdate = true;

			}

		} );
		pose( gltf, time );
		const b = box ?? boxOf( gltf.scene );
		const { scene, camera } = stage( gltf, b, view );
		renderer.render( scene, camera );
		return { pixels: pixels(), png: canvas.toDataURL( 'image/png' ), box: b, bytes: gpuBytes( gltf.scene ) };

	},

	/** Milliseconds a frame for each of `cases` (each loaded once), interleaved over `rounds`: min and median. */
	async timing( cases, rounds, frames ) {

		const gl = renderer.getContext();
		const staged = [];
		for ( const c of cases ) {

			const gltf = await load( c.url, c.plugin );
			pose( gltf, c.time );
			staged.push( stage( gltf, c.box, c.view ) );

		}

		const totals = staged.map( () => [] );
		const px = new Uint8Array( 4 );
		for ( let r = 0; r < rounds; r ++ ) staged.forEach( ( s, i ) => {

			renderer.render( s.scene, s.camera ); // warm
			gl.readPixels( 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px );
			const t0 = performance.now();
			for ( let k = 0; k < frames; k ++ ) renderer.render( s.scene, s.camera );
			gl.readPixels( 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px );
			totals[ i ].push( ( performance.now() - t0 ) / frames );

		} );
		// The fastest round (the least disturbed by the rest of the machine) and the median.
		return totals.map( ( t ) => {

			t.sort( ( a, b ) => a - b );
			return { min: t[ 0 ], median: t[ t.length >> 1 ] };

		} );

	},

	/**
	 * The package's BC5 decoder (what it uses where a device has no RGTC) against the GPU's, SNORM
	 * (`unorm` false: two-layer maps) or UNORM (a tangent map's normal layout): `n` seeded random
	 * blocks uploaded compressed, drawn texel for texel (nearest) into a float target and read
	 * back. Returns the largest difference per channel and the count of blocks.
	 */
	checkBc5( n, seed, unorm = false ) {

		let x = seed >>> 0;
		const random = () => {

			// mulberry32
			x = ( x + 0x6d2b79f5 ) >>> 0;
			let t = x;
			t = Math.imul( t ^ ( t >>> 15 ), t | 1 );
			t ^= t + Math.imul( t ^ ( t >>> 7 ), t | 61 );
			return ( ( t ^ ( t >>> 14 ) ) >>> 0 ) / 4294967296;

		};

		const width = 4 * n, height = 4;
		const blocks = new Uint8Array( 16 * n );
		for ( let i = 0; i < blocks.length; i ++ ) blocks[ i ] = Math.floor( random() * 256 );
		// Every endpoint order and the −128 endpoint (read as −127) appear.
		blocks[ 0 ] = 0x80;
		blocks[ 1 ] = 0x7f;
		blocks[ 16 ] = 0x10;
		blocks[ 17 ] = 0x10;
		const format = unorm ? THREE.RED_GREEN_RGTC2_Format : THREE.SIGNED_RED_GREEN_RGTC2_Format;
		const texture = new THREE.CompressedTexture( [ { data: blocks, width, height } ], width, height, format, THREE.UnsignedByteType );
		texture.minFilter = texture.magFilter = THREE.NearestFilter;
		texture.generateMipmaps = false;
		texture.needsUpdate = true;
		const target = new THREE.WebGLRenderTarget( width, height, { type: THREE.FloatType } );
		const quad = new THREE.Mesh( new THREE.PlaneGeometry( 2, 2 ), new THREE.ShaderMaterial( {
			uniforms: { map: { value: texture } },
			vertexShader: 'varying vec2 vUv; void main() { vUv = uv; gl_Position = vec4( position.xy, 0.0, 1.0 ); }',
			fragmentShader: 'uniform sampler2D map; varying vec2 vUv; void main() { gl_FragColor = vec4( texture2D( map, vUv ).rg, 0.0, 1.0 ); }',
		} ) );
		const scene = new THREE.Scene().add( quad );
		renderer.setRenderTarget( target );
		renderer.render( scene, new THREE.OrthographicCamera( - 1, 1, 1, - 1, 0, 1 ) );
		const gpu = new Float32Array( width * height * 4 );
		renderer.readRenderTargetPixels( target, 0, 0, width, height, gpu );
		renderer.setRenderTarget( null );
		const js = decodeBc5( blocks, width, height, unorm );
		let worst = 0;
		for ( let y = 0; y < height; y ++ ) for ( let i = 0; i < width; i ++ ) for ( let c = 0; c < 2; c ++ ) {

			// The target's row 0 is the texture's row 0 (uv.y = 0 at the bottom, no flip).
			worst = Math.max( worst, Math.abs( gpu[ 4 * ( y * width + i ) + c ] - js[ 2 * ( y * width + i ) + c ] ) );

		}

		return { blocks: n, worst };

	},

	/** The JavaScript decoders against the Rust test's table: the formats and every frame, bit for bit. */
	checkDecoders( table ) {

		const bits = ( x ) => new Uint32Array( new Float32Array( [ x ] ).buffer )[ 0 ];
		const problems = [];
		for ( const want of table.formats ) {

			const have = FORMATS.find( ( f ) => f.name === want.name );
			for ( const key of [ 'bytes', 'maxErrorDeg', 'componentType', 'itemSize', 'normalized', 'code' ] ) {

				if ( ! have || have[ key ] !== want[ key ] ) problems.push( `format ${ want.name }: ${ key } is ${ have?.[ key ] } in JavaScript, ${ want[ key ] } in Rust` );

			}

		}

		if ( FORMATS.length !== table.formats.length ) problems.push( `${ FORMATS.length } formats in JavaScript, ${ table.formats.length } in Rust` );
		let checked = 0;
		for ( const c of table.frames ) {

			const bytes = Uint8Array.from( c.bytes.match( /../g ).map( ( h ) => parseInt( h, 16 ) ) );
			const q = decodeQTangent( c.format, bytes );
			const fr = toFrame( q );
			const got = [ q.x, q.y, q.z, q.w, ...fr.normal, ...fr.tangent, ...fr.bitangent ].map( bits );
			const want = [ ...c.q, ...c.n, ...c.t, ...c.b ];
			const bad = got.findIndex( ( g, i ) => g !== want[ i ] );
			if ( bad >= 0 || q.reflected !== c.reflected ) problems.push( `${ c.format} ${ c.bytes }: value ${ bad } is ${ got[ bad ] }, Rust ${ want[ bad ] }; reflected ${ q.reflected } / ${ c.reflected }` );
			checked ++;

		}

		return { checked, problems: problems.slice( 0, 20 ), mismatches: problems.length };

	},

};
window.qtReady = true;
