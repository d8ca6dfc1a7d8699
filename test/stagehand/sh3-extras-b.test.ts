// Stagehand 3's frame registry (page.frameForId(), getFullFrameTree(), asProtocolFrameTree(),
// listAllFrameIds(), getOrdinal(), waitForMainLoadState(), context.getFullFrameTreeByMainFrameId())
// and locator.resolveNode() / resolveNodesForMask(), methods of a Stagehand's pages, context and
// locators (src/stagehand/page.ts), on frames.html (same-origin, nested, srcdoc, out-of-process and script-added iframes) and
// shadow.html (open and closed shadow roots).

import type { Protocol } from 'devtools-protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ElementNotFoundError,
  InvalidOptionError,
  PageNotFoundError,
  StagehandElementNotFoundError,
  Stagehand,
  StagehandInvalidArgumentError,
  TimeoutError,
  type Frame,
  type StagehandLocator,
} from '../../src/index.js';
import { useBrowser } from '../helpers.js';

const fixture = useBrowser({}, { stagehand: true });
const frame = (query: string): Frame => fixture.page.frames().find((each) => each.url().includes(query))!;

/** The tree's frames depth first, each with its parent's id. */
function walk(tree: Protocol.Page.FrameTree, parent?: string): Array<{ id: string; parent?: string; frame: Protocol.Page.Frame }> {
  return [{ id: tree.frame.id, parent, frame: tree.frame }, ...(tree.childFrames ?? []).flatMap((child) => walk(child, tree.frame.id))];
}

describe('the frame registry', () => {
  beforeAll(async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
  });

  it('lists every frame id in tree order, out-of-process and nested ones included', () => {
    const ids = fixture.page.listAllFrameIds();
    expect(ids).toEqual(fixture.page.frames().map((each) => each.id));
    expect(ids[0]).toBe(fixture.page.mainFrameId());
    for (const query of ['child.html', 'leaf.html?in=child', 'oop.html', 'leaf.html?in=oop', 'leaf.html?by=script'])
      expect(ids).toContain(frame(query).id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives the whole page as a protocol FrameTree, with what Chrome reported of each frame', () => {
    const tree = fixture.page.getFullFrameTree();
    const nodes = walk(tree);
    expect(nodes.map((node) => node.id)).toEqual(fixture.page.listAllFrameIds());
    expect(tree.frame.id).toBe(fixture.page.mainFrameId());
    expect(tree.frame.url).toBe(fixture.servers.a.url('/frames.html'));
    expect(tree.frame.parentId).toBeUndefined();
    for (const node of nodes.slice(1)) {
      expect(node.frame.parentId).toBe(node.parent);
      expect(node.frame.loaderId).not.toBe('');
    }
    const byUrl = (query: string) => nodes.find((node) => node.frame.url.includes(query))!;
    // The out-of-process frame: its origin is the second server's, and its child is under it.
    const oop = byUrl('oop.html');
    expect(oop.frame.securityOrigin).toBe(new URL(fixture.servers.b.url('/')).origin);
    expect(oop.frame.mimeType).toBe('text/html');
    expect(oop.frame.name).toBe('oop');
    expect(byUrl('leaf.html?in=oop').parent).toBe(oop.id);
    expect(byUrl('leaf.html?in=child').parent).toBe(byUrl('child.html').id);
    expect(byUrl('child.html').frame.securityOrigin).toBe(new URL(fixture.servers.a.url('/')).origin);
  });

  it('gives the tree under any frame, and the frame itself by id', async () => {
    expect(fixture.page.asProtocolFrameTree(fixture.page.mainFrameId())).toEqual(fixture.page.getFullFrameTree());
    const oop = frame('oop.html');
    const under = fixture.page.asProtocolFrameTree(oop.id);
    expect(under.frame.id).toBe(oop.id);
    expect(under.childFrames?.map((child) => child.frame.id)).toEqual([frame('leaf.html?in=oop').id]);
    expect(fixture.page.frameForId(oop.id)).toBe(oop);
    expect(fixture.page.frameForId(frame('leaf.html?in=child').id)).toBe(frame('leaf.html?in=child'));
    expect(await fixture.page.frameForId(oop.id).locator('#o').textContent()).toBe('cross-origin child');
  });

  it('numbers frames as the page text does', async () => {
    const main = fixture.page.mainFrameId();
    expect(fixture.page.getOrdinal(main)).toBe(0);
    const oop = frame('oop.html');
    const ordinal = fixture.page.getOrdinal(oop.id);
    expect(ordinal).toBe(fixture.page.frames().indexOf(oop));
    const text = (await fixture.sdk.extract()).pageText;
    const line = text.split('\n').find((each) => each.includes('cross-origin child'))!;
    expect(line).toMatch(new RegExp(`\\[${ordinal}-\\d+\\]`));
  });

  it('follows a change of the URL within the document: the fragment apart, as the protocol has it', async () => {
    await fixture.page.evaluate(() => {
      location.hash = 'part';
    });
    await expect.poll(() => fixture.page.url()).toContain('#part');
    const tree = fixture.page.getFullFrameTree();
    expect(tree.frame.url).toBe(fixture.servers.a.url('/frames.html'));
    expect(tree.frame.urlFragment).toBe('#part');
  });

  it("gives a page's tree from the context by its main frame id", async () => {
    const id = fixture.page.mainFrameId();
    expect(await fixture.sdk.context.getFullFrameTreeByMainFrameId(id)).toEqual(fixture.page.getFullFrameTree());
    const error = await fixture.sdk.context.getFullFrameTreeByMainFrameId(frame('oop.html').id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PageNotFoundError);
    expect((error as Error).message).toContain(frame('oop.html').id);
  });

  it('refuses ids the page does not have, and ids that are not strings, with typed errors', async () => {
    for (const call of [
      () => fixture.page.frameForId('NO-SUCH-FRAME'),
      () => fixture.page.asProtocolFrameTree('NO-SUCH-FRAME'),
      () => fixture.page.getOrdinal('NO-SUCH-FRAME'),
    ]) {
      expect(call).toThrow(InvalidOptionError);
      expect(call).toThrow(/no frame with id NO-SUCH-FRAME.*listAllFrameIds/);
    }
    expect(() => fixture.page.frameForId(42 as unknown as string)).toThrow(StagehandInvalidArgumentError);
    await expect(fixture.sdk.context.getFullFrameTreeByMainFrameId(undefined as unknown as string)).rejects.toThrow(InvalidOptionError);
    // The page is still usable.
    expect(fixture.page.listAllFrameIds().length).toBeGreaterThan(5);
  });
});

describe('waitForMainLoadState', () => {
  it('resolves for a state the main document reached, and times out on one it never reaches', async () => {
    // An iframe whose request never ends holds the top document's load event back for good.
    await fixture.page.goto(fixture.servers.a.url('/frame-hanging.html'), { waitUntil: 'domcontentloaded' });
    await fixture.page.waitForMainLoadState('domcontentloaded');
    const error = await fixture.page.waitForMainLoadState('load', 300).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    await fixture.page.waitForMainLoadState('load', 5000);
  });

  it('refuses an unknown state or a bad timeout', async () => {
    await expect(fixture.page.waitForMainLoadState('loaded' as 'load')).rejects.toThrow(
      /"load", "domcontentloaded" or "networkidle", not "loaded"/,
    );
    await expect(fixture.page.waitForMainLoadState('load', -1)).rejects.toThrow(InvalidOptionError);
  });
});

describe('locator.resolveNode() and resolveNodesForMask()', () => {
  /** Runs a function on a resolved node in its frame's session, with the node as `this`. */
  const onNode = async <T>(owner: Frame, objectId: string, fn: string): Promise<T> => {
    const { result, exceptionDetails } = await owner.session.send('Runtime.callFunctionOn', {
      objectId,
      functionDeclaration: fn,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(exceptionDetails.text);
    return result.value as T;
  };

  it('give a handle in the page world of an out-of-process frame, and its DOM node id', async () => {
    await fixture.page.goto(fixture.servers.a.url('/frames.html'));
    const oop = frame('oop.html');
    // A frame's locators are StagehandLocators too (the frame's type, Tendril's Frame, does not say so).
    const node = await (oop.locator('#o') as StagehandLocator).resolveNode();
    // window.secret is a global of the frame's own scripts: the handle is in their world.
    expect(await onNode(oop, node.objectId, 'function () { return [this.id, window.secret]; }')).toEqual(['o', 'oop-world']);
    expect(node.nodeId).toBeGreaterThan(0);
    const described = await oop.session.send('DOM.describeNode', { nodeId: node.nodeId! });
    expect(described.node.attributes).toEqual(expect.arrayContaining(['id', 'o']));
    // The same from the page, through the iframe.
    const through = await fixture.page.locator('#oop >> #o').resolveNode();
    const framed = await fixture.page.frameLocator('#oop').locator('#o').resolveNode();
    expect(await onNode(oop, framed.objectId, 'function () { return this.id; }')).toBe('o');
    expect(await onNode(oop, through.objectId, 'function () { return this.textContent; }')).toBe('cross-origin child');
  });

  it('reach into open and closed shadow roots, one node or all of them', async () => {
    await fixture.page.goto(fixture.servers.a.url('/shadow.html'));
    const main = fixture.page.mainFrame();
    const closed = await fixture.page.locator('#closed-btn').resolveNode();
    expect(
      await onNode(main, closed.objectId, 'function () { return [this.textContent, this.getRootNode() instanceof ShadowRoot]; }'),
    ).toEqual(['closed button', true]);
    const all = await fixture.page.locator('button').resolveNodesForMask();
    const texts = await Promise.all(all.map((each) => onNode<string>(main, each.objectId, 'function () { return this.textContent; }')));
    expect(texts).toEqual(['open button', 'closed button']);
    expect(new Set(all.map((each) => each.nodeId)).size).toBe(2);
    const second = await fixture.page.locator('button').nth(1).resolveNodesForMask();
    expect(second).toHaveLength(1);
    expect(await onNode(main, second[0]!.objectId, 'function () { return this.id; }')).toBe('closed-btn');
  });

  it('say that nothing matches with the element-not-found errors', async () => {
    for (const call of [
      () => fixture.page.locator('#nothing-here').resolveNode(),
      () => fixture.page.locator('#nothing-here').resolveNodesForMask(),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ElementNotFoundError);
      expect(error).toBeInstanceOf(StagehandElementNotFoundError);
      expect((error as Error).message).toContain('#nothing-here');
    }
  });
});

describe('useTouch', () => {
  it('is taken, as Stagehand takes it: usesTouch says it, for the pointer actions of an agent', () => {
    expect(new Stagehand({ useTouch: true, disablePino: true }).usesTouch).toBe(true);
    expect(new Stagehand({ useTouch: false, disablePino: true }).usesTouch).toBe(false);
    expect(new Stagehand({ disablePino: true }).usesTouch).toBe(false);
  });
});
