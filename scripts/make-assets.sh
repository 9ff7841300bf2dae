#!/usr/bin/env bash
# Regenerates the site's raster and video assets from their sources, so none is downloaded:
#   public/media/hero.mp4 + hero-poster.webp  <- ffmpeg lavfi (scripts/assets/hero-filter.mjs)
#   public/icons/*.png                               <- public/icons/icon.svg (rsvg-convert + ImageMagick)
# The SVGs (public/icons/icon.svg, public/races/*.svg, public/badges/app-store.svg) are hand-written
# sources themselves. Outputs are committed; run this only after changing a source.
# Needs: ffmpeg (libx264, libvpx-vp9, libwebp), librsvg2-bin (rsvg-convert), imagemagick, node.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in ffmpeg rsvg-convert node; do
  command -v "$tool" >/dev/null || { echo "make-assets: '$tool' is missing (apt-get install ffmpeg librsvg2-bin imagemagick)" >&2; exit 1; }
done
# Debian installs ImageMagick 6 as convert-im6.q16; use it directly so a stand-in on PATH cannot interfere.
IM=$(command -v convert-im6.q16 || command -v convert)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "hero video: rendering 6 s at 854x480 (a minute and a half on 2 idle cores)"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "color=c=black:s=854x480:r=24:d=6" \
  -vf "$(node scripts/assets/hero-filter.mjs),gblur=sigma=0.7" -c:v ffv1 "$tmp/hero.mkv"
ffmpeg -hide_banner -loglevel error -y -i "$tmp/hero.mkv" -an -c:v libx264 -preset veryslow -crf 26 \
  -tune animation -pix_fmt yuv420p -profile:v high -movflags +faststart public/media/hero.mp4
# The poster is the first frame of the encoded video, so swapping poster for video shows no jump.
ffmpeg -hide_banner -loglevel error -y -i public/media/hero.mp4 -frames:v 1 -c:v libwebp -quality 70 \
  public/media/hero-poster.webp

echo "icons"
svg=public/icons/icon.svg
# Full-bleed variants: square corners (the platform masks them) and the pin re-centred.
full_bleed() { # $1 scale
  sed -e 's/rx="112"/rx="0"/' \
      -e "s|fill=\"url(#g)\"/>|fill=\"url(#g)\"/><g transform=\"translate(256 256) scale($1) translate(-256 -278)\">|" \
      -e 's|</svg>|</g></svg>|' "$svg"
}
rsvg-convert -w 192 -h 192 "$svg" -o public/icons/icon-192.png
rsvg-convert -w 512 -h 512 "$svg" -o public/icons/icon-512.png
# Maskable: everything that matters inside the central 80% circle (W3C safe zone).
full_bleed 0.9 > "$tmp/maskable.svg"
rsvg-convert -w 512 -h 512 "$tmp/maskable.svg" -o public/icons/icon-maskable-512.png
# iOS shows transparency as black: flatten onto the brand colour.
full_bleed 1 > "$tmp/apple.svg"
rsvg-convert -w 180 -h 180 "$tmp/apple.svg" -o "$tmp/apple.png"
"$IM" "$tmp/apple.png" -background '#c2410c' -alpha remove -alpha off public/icons/apple-touch-icon.png

ls -l public/media public/icons
