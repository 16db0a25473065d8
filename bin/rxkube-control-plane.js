#!/usr/bin/env node
// Runs the compiled CLI; `npm run build` (the package's `prepare` script) produces dist/.
import '../dist/testing/cli/control-plane.js';
