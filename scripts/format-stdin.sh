#!/bin/sh
# git's clean filter for code (docs/contributing.md, "Merging a branch cut before a reformat"): formats stdin as
# Biome would format the file named $1, and writes it to stdout. Formatting twice gives the fixed point (for a few
# member chains one pass does not). A file that does not parse makes it fail, and git then keeps the file as it is.
set -eu
biome="$(git rev-parse --show-toplevel)/node_modules/.bin/biome"
once="$("$biome" format --stdin-file-path="$1" 2>/dev/null)"
printf '%s\n' "$once" | "$biome" format --stdin-file-path="$1" 2>/dev/null
