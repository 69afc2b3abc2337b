// `node --import ./test/three-release.mjs …`: with QTANGENT_THREE set (a package folder under
// node_modules, e.g. `three-oldest`, the oldest three.js release the package supports, installed
// under that alias by package.json), every import of `three` and `three/…` resolves to that
// package instead. How `npm run test:oldest` and the Rust tests run the node tests on both ends
// of the supported range.

import { register } from 'node:module';

if ( process.env.QTANGENT_THREE ) register( './three-release-hooks.mjs', import.meta.url, { data: { name: process.env.QTANGENT_THREE } } );
