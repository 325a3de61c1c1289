import sharp from 'sharp';

/** mimic's icon: a face in profile looking at a play mark, on the dark square of the docs. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="14" fill="#1d2733"/>
<circle cx="24" cy="28" r="13" fill="#f4c27a"/>
<circle cx="20" cy="25" r="2.2" fill="#1d2733"/><circle cx="29" cy="25" r="2.2" fill="#1d2733"/>
<path d="M18 33q6 5 12 0" stroke="#1d2733" stroke-width="2.4" fill="none" stroke-linecap="round"/>
<path d="M40 36l16 9-16 9z" fill="#4fb3ff"/>
</svg>
`;

/**
 * An ICO file holding one 32x32 PNG (the form every browser since 2007 reads), so
 * `/favicon.ico`, which browsers ask for on their own, needs no committed binary.
 */
export async function iconIco(): Promise<Buffer> {
  const png = await sharp(Buffer.from(ICON_SVG)).resize(32, 32).png().toBuffer();
  const header = Buffer.alloc(22);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(32, 6); // width
  header.writeUInt8(32, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9); // reserved
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18); // the image follows the one directory entry
  return Buffer.concat([header, png]);
}
