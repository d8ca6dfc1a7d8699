// The options of page.screenshot() and frame.screenshot(), checked before anything is changed in
// the page: a wrong value, or two options that cannot go together, is an InvalidOptionError naming
// them, never an option quietly ignored.

import { InvalidOptionError } from '../errors.js';
import { milliseconds } from '../util/checks.js';
import type { FrameScreenshotOptions, ScreenshotClip, ScreenshotOptions } from '../types.js';

export interface CheckedScreenshot {
  selector?: string;
  timeoutMs: number;
  format: 'png' | 'jpeg';
  quality?: number;
  fullPage: boolean;
  clip?: ScreenshotClip;
  mask: ReadonlyArray<object | string>;
  maskColor: string;
  omitBackground: boolean;
  path?: string;
  /** "css", "device", or a factor of its own (frame.screenshot). */
  scale: 'css' | 'device' | number;
  animations: 'disabled' | 'allow';
  caret: 'hide' | 'initial';
  style: string;
}

const PAGE_OPTIONS = [
  'selector',
  'timeoutMs',
  'timeout',
  'type',
  'quality',
  'fullPage',
  'clip',
  'mask',
  'maskColor',
  'omitBackground',
  'path',
  'scale',
  'animations',
  'caret',
  'style',
];
const FRAME_OPTIONS = ['fullPage', 'clip', 'type', 'quality', 'scale', 'timeoutMs'];

function fail(what: string, message: string): never {
  throw new InvalidOptionError(`${what}: ${message}`);
}

function known(what: string, options: unknown, names: string[]): Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) fail(what, `options must be an object, not ${JSON.stringify(options)}.`);
  const unknown = Object.keys(options).filter((name) => !names.includes(name));
  if (unknown.length)
    fail(what, `${unknown.map((name) => `\`${name}\``).join(', ')} is not an option; the options are ${names.join(', ')}.`);
  return options as Record<string, unknown>;
}

function oneOf<T extends string>(what: string, name: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!choices.includes(value as T))
    fail(what, `\`${name}\` must be ${choices.map((each) => `"${each}"`).join(' or ')}, not ${JSON.stringify(value)}.`);
  return value as T;
}

function flag(what: string, name: string, value: unknown): boolean {
  if (value !== undefined && typeof value !== 'boolean') fail(what, `\`${name}\` must be true or false, not ${JSON.stringify(value)}.`);
  return value === true;
}

function text(what: string, name: string, value: unknown): string | undefined {
  if (value !== undefined && (typeof value !== 'string' || !value.trim()))
    fail(what, `\`${name}\` must be a non-empty string, not ${JSON.stringify(value)}.`);
  return value as string | undefined;
}

function checkClip(what: string, clip: unknown): ScreenshotClip | undefined {
  if (clip === undefined) return undefined;
  const { x, y, width, height } = (clip ?? {}) as Record<string, unknown>;
  const fields = { x, y, width, height };
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'number' || !Number.isFinite(value))
      fail(what, `\`clip.${name}\` must be a finite number of CSS pixels, not ${JSON.stringify(value)}.`);
  }
  if ((width as number) <= 0 || (height as number) <= 0) fail(what, '`clip` must have a positive width and height.');
  return fields as ScreenshotClip;
}

/** The picture's format and quality: JPEG alone has a quality, 0 to 100. */
function checkFormat(what: string, type: unknown, quality: unknown, path?: string): { format: 'png' | 'jpeg'; quality?: number } {
  const byPath = path && /\.jpe?g$/i.test(path) ? 'jpeg' : 'png';
  if (type !== undefined && type !== 'png' && type !== 'jpeg')
    fail(what, `unsupported image type ${JSON.stringify(type)}: \`type\` must be "png" or "jpeg".`);
  const format = (type ?? byPath) as 'png' | 'jpeg';
  if (quality === undefined) return { format };
  if (format !== 'jpeg') fail(what, 'the quality option is only valid for JPEG; add type: "jpeg", or leave quality out for a PNG.');
  if (typeof quality !== 'number' || !Number.isInteger(quality) || quality < 0 || quality > 100)
    fail(what, `\`quality\` must be a whole number from 0 to 100, not ${JSON.stringify(quality)}.`);
  return { format, quality };
}

const CLIP_AND_FULL_PAGE = 'clip and fullPage cannot be used together: a clip is a part of the page, fullPage all of it.';

function checkTimeout(what: string, value: unknown, fallback: number): number {
  return value === undefined ? fallback : milliseconds(value, `${what}: the timeout`, 1);
}

export function checkScreenshotOptions(input: ScreenshotOptions | undefined, defaultTimeoutMs: number): CheckedScreenshot {
  const what = 'screenshot';
  const options = known(what, input, PAGE_OPTIONS);
  const selector = text(what, 'selector', options.selector);
  const path = text(what, 'path', options.path);
  const { format, quality } = checkFormat(what, options.type, options.quality, path);
  const fullPage = flag(what, 'fullPage', options.fullPage);
  const clip = checkClip(what, options.clip);
  const omitBackground = flag(what, 'omitBackground', options.omitBackground);
  if (fullPage && clip) fail(what, CLIP_AND_FULL_PAGE);
  if (selector !== undefined && (fullPage || clip))
    fail(what, `\`selector\` captures one element; it cannot be used with \`${fullPage ? 'fullPage' : 'clip'}\`.`);
  if (omitBackground && format === 'jpeg') fail(what, '`omitBackground` needs a PNG: a JPEG has no transparency.');
  const mask = options.mask ?? [];
  if (
    !Array.isArray(mask) ||
    mask.some((each) => typeof each !== 'string' && (typeof each !== 'object' || each === null || !('selector' in each)))
  ) {
    fail(what, '`mask` must be an array of locators (page.locator(...)) or selectors.');
  }
  const style = options.style ?? '';
  if (typeof style !== 'string') fail(what, `\`style\` must be CSS text, not ${JSON.stringify(style)}.`);
  return {
    selector,
    timeoutMs: checkTimeout(what, options.timeout ?? options.timeoutMs, defaultTimeoutMs),
    format,
    quality,
    fullPage,
    clip,
    mask,
    maskColor: text(what, 'maskColor', options.maskColor) ?? '#FF00FF',
    omitBackground,
    path,
    scale: oneOf<'css' | 'device'>(what, 'scale', options.scale, ['css', 'device'], 'device'),
    animations: oneOf<'disabled' | 'allow'>(what, 'animations', options.animations, ['disabled', 'allow'], 'allow'),
    caret: oneOf<'hide' | 'initial'>(what, 'caret', options.caret, ['hide', 'initial'], 'hide'),
    style,
  };
}

export function checkFrameScreenshotOptions(input: FrameScreenshotOptions | undefined, defaultTimeoutMs: number): CheckedScreenshot {
  const what = 'frame.screenshot';
  const options = known(what, input, FRAME_OPTIONS);
  const { format, quality } = checkFormat(what, options.type, options.quality);
  const fullPage = flag(what, 'fullPage', options.fullPage);
  const clip = checkClip(what, options.clip);
  if (fullPage && clip) fail(what, CLIP_AND_FULL_PAGE);
  const scale = options.scale ?? 1;
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0)
    fail(what, `\`scale\` must be a positive number (0.1 to 2), not ${JSON.stringify(scale)}.`);
  return {
    timeoutMs: checkTimeout(what, options.timeoutMs, defaultTimeoutMs),
    format,
    quality,
    fullPage,
    clip,
    mask: [],
    maskColor: '',
    omitBackground: false,
    scale: Math.min(2, Math.max(0.1, scale)),
    animations: 'allow',
    caret: 'initial',
    style: '',
  };
}
