// The qtangent viewer: open or drop a .glb/.gltf and compare the file's own frames (three.js
// alone), the qtangent attribute (QTangentPlugin, decoded in the vertex shader) and the quaternion
// maps, or see their difference; the panel gives the bytes of frames and frame textures on the
// GPU for each. Served by `cargo xtask web`. `?file=URL&mode=file|qtangent|maps|difference`.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { QTangentPlugin, gpuBytes } from './src/three.js';

const canvas = document.getElementById( 'view' );
const status = document.getElementById( 'status' );
const bytesText = document.getElementById( 'bytes' );
const renderer = new THREE.WebGLRenderer( { canvas, antialias: true, preserveDrawingBuffer: true } );
renderer.setPixelRatio( window.devicePixelRatio );
const ktx2 = new KTX2Loader().setTranscoderPath( '/node_modules/three/examples/jsm/libs/basis/' ).detectSupport( renderer );
const camera = new THREE.PerspectiveCamera( 35, 1, 0.01, 1000 );
const controls = new OrbitControls( camera, canvas );
const BACKGROUND = new THREE.Color( 0.18, 0.2, 0.24 );
const targets = { a: new THREE.WebGLRenderTarget( 1, 1 ), b: new THREE.WebGLRenderTarget( 1, 1 ) };
let scenes = {};
let mode = new URLSearchParams( location.search ).get( 'mode' ) ?? 'maps';

function lights( scene ) {

	scene.background = BACKGROUND;
	scene.add( new THREE.HemisphereLight( 0xdde8ff, 0x403830, 1.2 ) );
	const key = new THREE.DirectionalLight( 0xffffff, 3.0 );
	key.position.set( 1, 2, 3 );
	scene.add( key );
	const rim = new THREE.DirectionalLight( 0xffeedd, 1.2 );
	rim.position.set( - 2, 1, - 1 );
	scene.add( rim );
	return scene;

}

async function load( url, plugin ) {

	const loader = new GLTFLoader().setKTX2Loader( ktx2 ).setMeshoptDecoder( MeshoptDecoder );
	if ( plugin ) loader.register( ( parser ) => new QTangentPlugin( parser, { renderer, ktx2Loader: ktx2, ...plugin } ) );
	const gltf = await loader.loadAsync( url );
	const scene = lights( new THREE.Scene() );
	scene.add( gltf.scene );
	if ( gltf.animations.length ) {

		const mixer = new THREE.AnimationMixer( gltf.scene );
		mixer.clipAction( gltf.animations[ 0 ] ).play();
		mixer.setTime( 0.5 );

	}

	return { scene, root: gltf.scene, hasQTangent: !! gltf.parser.json.extensionsUsed?.includes( 'QTANGENT_frames' ) };

}

async function open( url, name ) {

	status.textContent = `loading ${ name } …`;
	window.viewerReady = false;
	try {

		const file = await load( url, null );
		scenes = { file };
		if ( file.hasQTangent ) {

			scenes.qtangent = await load( url, { mode: 'gpu', maps: false } );
			scenes.maps = await load( url, { mode: 'gpu', maps: true } );

		}

		const box = new THREE.Box3().setFromObject( file.root );
		const sphere = box.getBoundingSphere( new THREE.Sphere() );
		controls.target.copy( sphere.center );
		camera.near = sphere.radius / 100;
		camera.far = sphere.radius * 100;
		camera.position.copy( sphere.center ).add( new THREE.Vector3( 0.3, 0.25, 1 ).normalize().multiplyScalar( sphere.radius * 2.8 ) );
		camera.updateProjectionMatrix();
		controls.update();
		const lines = [];
		for ( const [ k, s ] of Object.entries( scenes ) ) {

			const b = gpuBytes( s.root );
			lines.push( `${ k.padEnd( 9 ) } frames ${ ( b.frames / 1024 ).toFixed( 1 ).padStart( 8 ) } KiB (${ ( b.frames / Math.max( b.vertices, 1 ) ).toFixed( 1 ) } B/vertex)   frame textures ${ ( b.textures / 1024 ).toFixed( 1 ).padStart( 8 ) } KiB` );

		}

		bytesText.textContent = lines.join( '\n' );
		status.textContent = `${ name }: ${ file.hasQTangent ? 'qtangent file' : 'plain glTF (the file\'s frames only)' }`;
		draw();
		window.viewerReady = true;

	} catch ( e ) {

		status.textContent = `${ name }: ${ e.message }`;
		window.viewerError = e.message;
		throw e;

	}

}

const diffScene = new THREE.Scene();
const diffCamera = new THREE.OrthographicCamera( - 1, 1, 1, - 1, 0, 1 );
const diffMaterial = new THREE.ShaderMaterial( {
	uniforms: { a: { value: targets.a.texture }, b: { value: targets.b.texture } },
	vertexShader: 'varying vec2 vUv; void main() { vUv = uv; gl_Position = vec4( position.xy, 0.0, 1.0 ); }',
	fragmentShader: 'uniform sampler2D a, b; varying vec2 vUv; void main() { gl_FragColor = vec4( 8.0 * abs( texture2D( a, vUv ).rgb - texture2D( b, vUv ).rgb ), 1.0 ); }',
} );
diffScene.add( new THREE.Mesh( new THREE.PlaneGeometry( 2, 2 ), diffMaterial ) );

function draw() {

	if ( ! scenes.file ) return;
	const w = canvas.clientWidth, h = canvas.clientHeight;
	if ( canvas.width !== Math.floor( w * renderer.getPixelRatio() ) || canvas.height !== Math.floor( h * renderer.getPixelRatio() ) ) {

		renderer.setSize( w, h, false );
		camera.aspect = w / h;
		camera.updateProjectionMatrix();

	}

	const shown = scenes[ mode ] ?? scenes.file;
	if ( mode === 'difference' ) {

		const other = scenes.maps ?? scenes.file;
		for ( const t of Object.values( targets ) ) t.setSize( renderer.domElement.width, renderer.domElement.height );
		renderer.setRenderTarget( targets.a );
		renderer.render( scenes.file.scene, camera );
		renderer.setRenderTarget( targets.b );
		renderer.render( other.scene, camera );
		renderer.setRenderTarget( null );
		renderer.render( diffScene, diffCamera );

	} else {

		renderer.render( shown.scene, camera );

	}

}

/** The share of the canvas that is not background (the tests' check that the model shows). */
window.viewerCoverage = () => {

	const gl = renderer.getContext();
	const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
	const px = new Uint8Array( w * h * 4 );
	gl.readPixels( 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px );
	const bg = mode === 'difference' ? [ 0, 0, 0 ] : [ BACKGROUND.r, BACKGROUND.g, BACKGROUND.b ].map( ( x ) => Math.round( 255 * ( x <= 0.0031308 ? 12.92 * x : 1.055 * x ** ( 1 / 2.4 ) - 0.055 ) ) );
	let n = 0;
	for ( let i = 0; i < px.length; i += 4 ) if ( Math.abs( px[ i ] - bg[ 0 ] ) > 2 || Math.abs( px[ i + 1 ] - bg[ 1 ] ) > 2 || Math.abs( px[ i + 2 ] - bg[ 2 ] ) > 2 ) n ++;
	return n / ( w * h );

};

controls.addEventListener( 'change', draw );
window.addEventListener( 'resize', draw );
for ( const r of document.querySelectorAll( 'input[name=mode]' ) ) {

	r.checked = r.value === mode;
	r.addEventListener( 'change', () => {

		mode = r.value;
		draw();

	} );

}

document.getElementById( 'file' ).addEventListener( 'change', ( e ) => {

	const f = e.target.files[ 0 ];
	if ( f ) open( URL.createObjectURL( f ), f.name );

} );
window.addEventListener( 'dragover', ( e ) => {

	e.preventDefault();
	document.body.classList.add( 'dragging' );

} );
window.addEventListener( 'dragleave', () => document.body.classList.remove( 'dragging' ) );
window.addEventListener( 'drop', ( e ) => {

	e.preventDefault();
	document.body.classList.remove( 'dragging' );
	const f = e.dataTransfer.files[ 0 ];
	if ( f ) open( URL.createObjectURL( f ), f.name );

} );

const start = new URLSearchParams( location.search ).get( 'file' );
if ( start ) open( start, start.split( '/' ).pop() );
