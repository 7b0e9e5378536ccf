import type { Branding } from '../types.js';

/**
 * All widget styles, injected into the shadow root. `:host` resets everything the page could
 * inherit or force onto the host element (`!important` beats the page's normal rules on the host,
 * CSS Scoping 3.4); nothing here can reach the page.
 */
export const css = `
:host { all: initial !important; display: block !important; visibility: visible !important; opacity: 1 !important;
  contain: content; position: relative !important; width: auto !important; height: auto !important; }
.tw { box-sizing: border-box; font: 14px/1.4 var(--tw-font); color: #1d2330; background: #fff;
  border: 1px solid #d9dde5; border-radius: 10px; padding: 12px; display: block; }
.tw *, .tw *::before, .tw *::after { box-sizing: border-box; }
.tw h2 { font-size: 18px; margin: 0 0 4px; font-weight: 700; }
.tw h3 { font-size: 15px; margin: 12px 0 6px; font-weight: 700; }
.tw p { margin: 4px 0; }
.tw .sub { color: #555d6e; font-size: 13px; }
.tw .head { display: flex; gap: 10px; align-items: center; }
.tw .head img { max-height: 36px; max-width: 120px; }
.tw .layout { display: grid; grid-template-columns: minmax(0, 2fr) minmax(220px, 1fr); gap: 12px; margin-top: 8px; }
@media (max-width: 640px) { .tw .layout { grid-template-columns: 1fr; } }
.tw button { font: inherit; cursor: pointer; border-radius: 6px; border: 1px solid var(--tw-primary);
  background: #fff; color: var(--tw-primary); padding: 4px 10px; min-height: 30px; }
.tw button:disabled { opacity: .5; cursor: not-allowed; }
.tw button.primary { background: var(--tw-primary); color: #fff; font-weight: 700; padding: 8px 14px; width: 100%; }
.tw button:focus-visible, .tw select:focus-visible, .tw input:focus-visible { outline: 3px solid var(--tw-accent); outline-offset: 2px; }
.tw select, .tw input { font: inherit; border: 1px solid #9aa3b2; border-radius: 6px; padding: 4px 6px; background: #fff; color: inherit; min-height: 30px; max-width: 100%; min-width: 0; }
.tw .mapbox { position: relative; overflow: hidden; border: 1px solid #e3e6ec; border-radius: 8px; background: #f7f8fa; }
.tw .pan { position: relative; will-change: transform; }
.tw canvas.seats { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }
.tw svg.map { position: relative; display: block; width: 100%; height: 420px; touch-action: none; user-select: none; cursor: grab; }
.tw .shield { position: absolute; inset: 0; cursor: grabbing; }
.tw .maptools { display: flex; justify-content: space-between; align-items: flex-start; gap: 6px; padding: 6px; border-bottom: 1px solid #e3e6ec; background: #fff; }
.tw .sectors { display: flex; flex-wrap: wrap; gap: 4px; margin: 0; padding: 0; list-style: none; }
.tw .sectors button, .tw .zoom button { min-height: 36px; }
.tw .sectors .count { font-weight: 700; }
.tw .zoom { display: flex; gap: 4px; flex: none; }
.tw .zoom button { background: #fff; min-width: 36px; padding: 0 6px; }
.tw .stage { fill: #d9dde5; }
.tw .stage-label { font-size: .7px; font-weight: 700; letter-spacing: .15px; fill: #3b4252; text-anchor: middle; dominant-baseline: central; }
.tw .row-label { font-size: .5px; font-weight: 700; fill: #555d6e; text-anchor: end; dominant-baseline: central; }
.tw .s { cursor: pointer; stroke-width: .1; stroke-linejoin: round; }
/* Each state differs in shape, size and fill, not only in colour (outlines in seat-layer.ts): free =
   large hollow square, yours = large filled square with a dark outline, held = medium translucent
   diamond, sold = small dark square. */
.tw .s.a { fill: #fff; stroke: var(--tw-primary); }
.tw .s.m { fill: var(--tw-primary); stroke: #111; stroke-width: .2; }
.tw .s.h { fill: #8a93a5; fill-opacity: .55; stroke: none; cursor: not-allowed; }
.tw .s.x { fill: #3b4252; stroke: none; cursor: not-allowed; }
.tw .s:focus { outline: none; stroke: var(--tw-accent); stroke-width: .25; }
.tw .sector-label { font-size: .8px; font-weight: 700; fill: #3b4252; }
.tw .labels { pointer-events: none; }
.tw .cartbar { display: none; }
@media (max-width: 640px) {
  .tw .cartbar { display: flex; position: sticky; bottom: 0; z-index: 2; margin: 8px -12px -12px; padding: 8px 12px; gap: 8px; align-items: center; justify-content: space-between;
    background: #fff; border-top: 2px solid var(--tw-primary); box-shadow: 0 -2px 8px rgba(0,0,0,.15); border-radius: 0 0 10px 10px; }
  .tw .cartbar .countdown { margin: 0; padding: 2px 6px; }
  .tw .cartbar > * { white-space: nowrap; }
}
.tw .legend { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 0; padding: 0; list-style: none; font-size: 12px; }
.tw .legend li { display: flex; align-items: center; gap: 4px; }
.tw .legend svg { width: 16px; height: 16px; }
.tw .zone { border: 1px solid #e3e6ec; border-radius: 8px; padding: 8px; margin-bottom: 8px; display: grid; gap: 6px; }
.tw .waitlist { border: 1px solid #e3e6ec; border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
.tw .waitlist form { display: grid; gap: 8px; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); align-items: end; }
.tw .waitlist label { display: grid; gap: 4px; font-size: 14px; }
.tw .waitlist input, .tw .waitlist select { width: 100%; box-sizing: border-box; }
.tw .waitlist [aria-invalid="true"] { border: 2px solid #b3261e; }
.tw .qty { display: flex; align-items: center; gap: 4px; }
.tw .qty input { width: 56px; text-align: center; }
.tw .best { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 0 0 8px; }
.tw .best output { min-width: 24px; text-align: center; font-weight: 700; }
.tw .best .secondary { flex: 1 1 140px; font-weight: 700; padding: 8px 14px; }
.tw .best .sub { flex: 1 1 160px; }
.tw .countdown.warn { background: #fde7e4; color: #8c1d13; border-color: #b3261e; }
.tw .breakdown { display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; margin: 8px 0 0; font-size: .92em; color: #444; }
.tw .breakdown dt, .tw .breakdown dd { margin: 0; }
.tw .breakdown dd { text-align: right; }
.tw .queue { border: 2px solid var(--tw-primary); border-radius: 8px; padding: 10px 14px; margin: 8px 0; }
.tw .queue h3 { margin: 0 0 6px; }
.tw .queue .queue-status { font-weight: 700; margin: 0 0 6px; }
.tw .queue.admitted { border-color: #1e7a34; }
.tw .queue.passExpired { border-color: #b3261e; }
.tw .queue button.primary { width: auto; }
.tw .cart ul { list-style: none; margin: 0; padding: 0; }
.tw .cart li { border-bottom: 1px solid #eceef2; padding: 6px 0; display: grid; grid-template-columns: 1fr auto; gap: 4px; }
.tw .cart .price { text-align: right; font-weight: 700; }
.tw .cart .detail { grid-column: 1 / -1; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.tw .total { display: flex; justify-content: space-between; font-weight: 700; font-size: 16px; margin: 8px 0; }
.tw .voucher { display: flex; gap: 6px; margin: 8px 0; }
.tw .voucher input { flex: 1; min-width: 0; }
.tw .chips { display: flex; gap: 6px; flex-wrap: wrap; list-style: none; margin: 0; padding: 0; }
.tw .countdown { background: #fff6e0; border: 1px solid #e8c46a; border-radius: 6px; padding: 6px 8px; margin: 8px 0; font-weight: 700; }
.tw .notice { border-radius: 6px; padding: 8px; margin: 8px 0; }
.tw .notice.error { background: #fdecec; border: 1px solid #e39a9a; color: #7a1010; }
.tw .notice.info { background: #eaf6ee; border: 1px solid #8fc7a0; color: #0d4d22; }
.tw .passes ul { list-style: none; margin: 0; padding: 0; }
.tw .passes li { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; padding: 6px 0; border-bottom: 1px solid #eceef2; }
.tw .passes li > span { flex: 1 1 100%; }
.tw a.wallet { display: inline-flex; align-items: center; min-height: 36px; padding: 6px 12px; border-radius: 6px; background: #000; color: #fff; font-weight: 700; text-decoration: none; }
.tw a.wallet:focus-visible { outline: 3px solid var(--tw-accent); outline-offset: 2px; }
.tw .field-error { color: #7a1010; font-size: 13px; margin: 0 0 6px; }
.tw .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

const COLOR = /^#[0-9a-fA-F]{3,8}$|^rgba?\([\d\s.,%]+\)$|^[a-zA-Z]{3,20}$/;
const FONT = /^[\w\s"',.-]{1,120}$/;

/** CSS custom properties from the channel's branding; values are checked so they cannot inject CSS. */
export function themeStyle(branding: Branding | undefined): string {
  const primary = branding?.primary_color && COLOR.test(branding.primary_color) ? branding.primary_color : '#1f4fd1';
  const accent = branding?.accent_color && COLOR.test(branding.accent_color) ? branding.accent_color : '#0b7a3b';
  const font =
    branding?.font_family && FONT.test(branding.font_family)
      ? branding.font_family
      : 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  return `--tw-primary:${primary};--tw-accent:${accent};--tw-font:${font};`;
}
