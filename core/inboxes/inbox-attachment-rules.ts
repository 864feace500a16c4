import { InvalidAttachmentError } from '../../lib/errors.js';

/**
 * What mail sent from an inbox may carry (the SDK's comments on drafts, replies and forwards):
 * no empty file and no executable type (the extensions mail providers refuse as a class), at
 * most 25 MB of files on a draft.
 */
export const DRAFT_MAX_BYTES = 25 * 1024 * 1024;

const BLOCKED_EXTENSIONS = new Set(
  (
    'ade adp app application appx appxbundle asp bas bat cer chm cmd com cpl crt csh der dll exe fxp gadget hlp hta ' +
    'inf ins iso isp its jar js jse ksh lib lnk mad maf mag mam maq mar mas mat mau mav maw mda mdb mde mdt mdw mdz ' +
    'msc msh msh1 msh2 mshxml msh1xml msh2xml msi msix msixbundle msp mst nsh ops pcd pif plg prf prg ps1 ps1xml ps2 ' +
    'ps2xml psc1 psc2 psd1 psm1 pst reg scf scr sct shb shs sys tmp url vb vbe vbp vbs vhd vhdx vps vsmacros vss vst ' +
    'vsw vxd ws wsc wsf wsh xbap xll xnk'
  ).split(' '),
);

/** Why a file of this name is refused, or undefined. */
export function blockedFileProblem(filename: string | null | undefined): string | undefined {
  const dot = (filename ?? '').lastIndexOf('.');
  const extension = dot >= 0 ? filename!.slice(dot + 1).toLowerCase() : '';
  return BLOCKED_EXTENSIONS.has(extension) ? `.${extension} files cannot be sent (an executable type)` : undefined;
}

/** Refuses an empty file or a blocked type (422 invalid_attachment), naming the attachment. */
export function assertSendableFile(
  file: { filename: string | null | undefined; size: number | null },
  path: string,
): void {
  const blocked = blockedFileProblem(file.filename);
  if (blocked)
    throw new InvalidAttachmentError(`Attachment ${file.filename} is refused: ${blocked}`, {
      errors: [{ path: `${path}.filename`, message: blocked }],
    });
  if (file.size === 0)
    throw new InvalidAttachmentError(`Attachment ${file.filename ?? ''} is empty`.trim(), {
      errors: [{ path: `${path}.content`, message: 'an empty file cannot be attached' }],
    });
}
