#!/bin/sh
# This project's devDependencies include npm's `node` package (Node 22 and 24 for the matrix), which
# links a `node` into node_modules/.bin: drop that directory from PATH so vitest itself, and the
# "installed Node" runtime of the matrix, stay the machine's Node.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/runtime-matrix/node_modules/.bin$' | paste -sd: -)
export PATH
exec vitest "$@"
