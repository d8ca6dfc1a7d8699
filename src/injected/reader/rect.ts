// Rectangles as the viewport view needs them; pure, so the host side (which clips a frame's lines by
// the part of its iframe that shows) uses the same rules as the page script.

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A region nothing shows through: a collapsed or scrolled-shut box, or a frame out of view. */
export function isEmpty(region: Rect): boolean {
  return region.right <= region.left || region.bottom <= region.top;
}

export function intersect(a: Rect, b: Rect): Rect {
  return {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
}

/**
 * Whether a box shows in a (non-empty) region. Touching the edge is not showing, except for a box
 * of no width or height (an empty field, a line of zero height), which shows when it lies inside.
 */
export function overlaps(box: Rect, region: Rect): boolean {
  const across =
    box.right > box.left ? box.left < region.right && box.right > region.left : box.left >= region.left && box.left <= region.right;
  const down =
    box.bottom > box.top ? box.top < region.bottom && box.bottom > region.top : box.top >= region.top && box.top <= region.bottom;
  return across && down;
}

export function translate(rect: Rect, dx: number, dy: number): Rect {
  return { left: rect.left + dx, top: rect.top + dy, right: rect.right + dx, bottom: rect.bottom + dy };
}
