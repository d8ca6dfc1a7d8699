// Stagehand's coordinate and keyboard actions of a page: click, hover, tap, scroll and dragAndDrop at
// points of the viewport (naming what is there with returnXpath), type and keyPress into what has
// focus; in the top document, a same-origin iframe, an out-of-process iframe and open and closed
// shadow roots, and in a tab that is not in front.
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError, UnknownKeyError, type Frame, type Page } from '../../src/index.js';
import { withDeadline } from '../../src/util/time.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser();

function frameOf(page: Page, fragment: string): Frame {
  const found = page.frames().find((frame) => frame.url().includes(fragment));
  if (!found) throw new Error(`no frame with ${fragment}`);
  return found;
}

/** Where sh3-page.html puts things (the centre of each button, in the viewport). */
const AT = {
  top: [70, 30],
  same: [90, 120],
  oop: [90, 260],
  open: [400, 30],
  closed: [400, 100],
} as const;

beforeEach(async () => {
  await fixture.page.goto(fixture.servers.a.url('/sh3-page.html'));
});

describe('page.click(x, y)', () => {
  it('clicks what is at the point, and names it with returnXpath, through frames and shadow roots', async () => {
    const { page } = fixture;
    const expected = {
      top: ['/html[1]/body[1]/button[1]', 'Top button'],
      same: ['/html[1]/body[1]/iframe[1]/html[1]/body[1]/button[1]', 'Frame button'],
      oop: ['/html[1]/body[1]/iframe[2]/html[1]/body[1]/button[1]', 'Frame button'],
      open: ['/html[1]/body[1]/div[1]/button[1]', 'Open button'],
      closed: ['/html[1]/body[1]/div[2]/button[1]', 'Closed button'],
    };
    for (const [where, [xpath, text]] of Object.entries(expected)) {
      const [x, y] = AT[where as keyof typeof AT];
      expect(await page.click(x, y, { returnXpath: true })).toBe(xpath);
      // The XPath leads back to the element, as a locator reads it.
      expect(await page.locator(xpath).textContent()).toBe(text);
    }
    expect(await page.click(AT.top[0], AT.top[1])).toBe('');
    const log = (await page.evaluate('window.log')) as string[];
    expect(log.filter((line) => line.startsWith('click'))).toEqual([
      'click top 0 1',
      'click open-btn 0 1',
      'click closed-btn 0 1',
      'click top 0 1',
    ]);
    expect(await frameOf(page, 'in=same').evaluate('window.log')).toContain('click inner');
    expect(await frameOf(page, 'in=oop').evaluate('window.log')).toContain('click inner');
  });

  it('names the point of a scrolled page by what the viewport shows there', async () => {
    const { page } = fixture;
    await page.evaluate(() => {
      document.getElementById('top')!.style.top = '1010px';
      scrollTo(0, 1000);
    });
    expect(await page.click(70, 30, { returnXpath: true })).toBe('/html[1]/body[1]/button[1]');
  });

  it('double-clicks with clickCount 2, and uses the button it is given', async () => {
    const { page } = fixture;
    await page.click(AT.top[0], AT.top[1], { clickCount: 2 });
    await page.click(AT.top[0], AT.top[1], { button: 'right' });
    const log = (await page.evaluate('window.log')) as string[];
    expect(log).toContain('dblclick top 0 2');
    expect(log).toContain('click top 0 2');
    expect(log).toContain('contextmenu top 2 0');
  });

  it('refuses bad arguments with InvalidOptionError, and works after', async () => {
    const { page } = fixture;
    await expect(page.click(Number.NaN, 3)).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.click('10' as unknown as number, 3)).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.click(1, 1, { button: 'side' as 'left' })).rejects.toThrow(/"left", "right" or "middle"/);
    await expect(page.click(1, 1, { clickCount: 0 })).rejects.toThrow(/clickCount/);
    await expect(page.dragAndDrop(1, 1, 2, 2, { steps: 1.5 })).rejects.toThrow(/steps/);
    await expect(page.scroll(1, 1, 0, Infinity)).rejects.toBeInstanceOf(InvalidOptionError);
    expect(await page.click(AT.top[0], AT.top[1], { returnXpath: true })).toBe('/html[1]/body[1]/button[1]');
  });
});

describe('page.hover(x, y), page.tap(), page.scroll(), page.dragAndDrop()', () => {
  it('hovers, through an out-of-process iframe and a closed shadow root too', async () => {
    const { page } = fixture;
    expect(await page.hover(AT.closed[0], AT.closed[1], { returnXpath: true })).toBe('/html[1]/body[1]/div[2]/button[1]');
    expect(await page.evaluate('window.log')).toContain('mouseover closed-btn 0 0');
    expect(await page.hover(AT.oop[0], AT.oop[1])).toBe('');
    // The move reaches the out-of-process frame's renderer on its own way: wait for what it logs.
    const logged =
      'new Promise((resolve) => { const check = () => (window.log.length ? resolve(window.log) : requestAnimationFrame(check)); check(); })';
    expect(await frameOf(page, 'in=oop').evaluate(logged)).toEqual(['mouseover inner']);
  });

  it('taps with a finger: touch events, and the click they make', async () => {
    const { page } = fixture;
    expect(await page.tap(AT.top[0], AT.top[1], { returnXpath: true })).toBe('/html[1]/body[1]/button[1]');
    const log = (await page.evaluate('window.log')) as string[];
    expect(log).toContain('pointerdown top touch');
    expect(log.some((line) => line.startsWith('touchstart top'))).toBe(true);
    // Chrome makes a click of the tap once it is sure it was one.
    await expect.poll(() => page.evaluate('window.log')).toContain('click top 0 1');
    await expect(page.tap(1, Number.NaN)).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('turns the wheel over the page, which scrolls', async () => {
    const { page } = fixture;
    await page.evaluate(() => {
      (window as unknown as { scrolled: Promise<number> }).scrolled = new Promise((resolve) =>
        addEventListener('scrollend', () => resolve(scrollY), { once: true }),
      );
    });
    expect(await page.scroll(600, 300, 0, 400, { returnXpath: true })).toBe('/html[1]');
    expect(await page.evaluate('scrolled')).toBeGreaterThan(0);
  });

  it('drags in steps, and names both ends', async () => {
    const { page } = fixture;
    const ends = await page.dragAndDrop(365, 245, 565, 345, { steps: 5, returnXpath: true });
    expect(ends).toEqual(['/html[1]/body[1]/div[3]', '/html[1]']);
    const drag = (await page.evaluate('window.drag')) as { moves: number; dropped: number[] };
    expect(drag.moves).toBeGreaterThanOrEqual(5);
    expect(drag.dropped).toEqual([565, 345]);
    expect(await page.evaluate(() => document.getElementById('drag')!.getBoundingClientRect().left)).toBe(540);
  });
});

describe('a page that is not in front', () => {
  it('still takes a hover and a click, without hanging', async () => {
    const { sdk, servers } = fixture;
    // A tab that has had no pointer input yet, then another in front of it.
    const behind = await sdk.context.newPage();
    const front = await sdk.context.newPage();
    try {
      await behind.goto(servers.a.url('/sh3-page.html'));
      await front.goto(servers.a.url('/sh3-page.html'));
      expect(await behind.evaluate('document.visibilityState')).toBe('hidden');
      // Chrome hands a pointer move to a tab only when the tab draws; a tab behind another does not.
      await withDeadline(behind.hover(AT.top[0], AT.top[1]), 5000, 'hover in a background tab');
      expect(await behind.evaluate('window.log')).toContain('mouseover top 0 0');
      await withDeadline(behind.click(AT.oop[0], AT.oop[1]), 5000, 'click in a background tab');
      expect(await frameOf(behind, 'in=oop').evaluate('window.log')).toContain('click inner');
    } finally {
      await Promise.all([front.close(), behind.close()]);
    }
  });
});

describe('page.type() and page.keyPress()', () => {
  it('types key by key into what has focus, with a delay or mistakes too', async () => {
    const { page } = fixture;
    await page.evaluate(() => {
      const field = document.getElementById('field') as HTMLInputElement;
      field.focus();
      (window as unknown as { keys: string[] }).keys = [];
      field.addEventListener('keydown', (event) => (window as unknown as { keys: string[] }).keys.push(event.key));
    });
    await page.type('Hi, 5 é!');
    expect(await page.evaluate('document.getElementById("field").value')).toBe('Hi, 5 é!');
    expect(await page.evaluate('keys')).toEqual(['H', 'i', ',', ' ', '5', ' ', 'é', '!']);
    await page.type('abc', { delay: 10 });
    await page.type('slowly but surely', { withMistakes: true });
    expect(await page.evaluate('document.getElementById("field").value')).toBe('Hi, 5 é!abcslowly but surely');
  });

  it("presses keys and chords; Cmd is the platform's shortcut key", async () => {
    const { page } = fixture;
    await page.click(400, 170);
    await page.type('hello world');
    await page.keyPress('Cmd+A');
    await page.keyPress('Backspace');
    expect(await page.evaluate('document.getElementById("field").value')).toBe('');
    await page.type('ab');
    await page.keyPress('ArrowLeft');
    await page.keyPress('Shift+x', { delay: 5 });
    await page.keyPress('+');
    expect(await page.evaluate('document.getElementById("field").value')).toBe('aX+b');
    await page.keyPress('Control+a');
    await page.keyPress('Delete');
    expect(await page.evaluate('document.getElementById("field").value')).toBe('');
  });

  it('refuses an unknown key before sending anything, and bad options', async () => {
    const { page } = fixture;
    await page.click(400, 170);
    const error = await page.keyPress('Control+Enterr').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownKeyError);
    expect((error as UnknownKeyError).key).toBe('Enterr');
    await expect(page.keyPress('')).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(page.type('x', { delay: -1 })).rejects.toThrow(/delay/);
    await expect(page.type(5 as unknown as string)).rejects.toBeInstanceOf(InvalidOptionError);
    // No Control was left held: this types.
    await page.type('ok');
    expect(await page.evaluate('document.getElementById("field").value')).toBe('ok');
  });
});
