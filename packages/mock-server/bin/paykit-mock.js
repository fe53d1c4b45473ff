#!/usr/bin/env node
// The CLI lives in the build output; this stub keeps the bin path valid before the first build.
import "../dist/node/cli.js";
