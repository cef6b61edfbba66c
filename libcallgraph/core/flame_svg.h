/*
 * flame_svg.h — the drawing half of a flame graph in SVG (internal, not
 * part of the public API): the document's frame, one box with its
 * tooltip and its name cut to fit, escaping.  Shared by the svg writer
 * (formats/svg, one profile) and cgdiff's differential flame graph
 * (diff/, two profiles), which lay out their boxes differently but must
 * look alike.  It lives in core because core is what both may include.
 */
#ifndef CG_FLAME_SVG_H
#define CG_FLAME_SVG_H

#include <stddef.h>
#include <stdio.h>

#define CG_FLAME_WIDTH 1200.0        /* picture width in pixels */
#define CG_FLAME_MARGIN 10.0
#define CG_FLAME_FRAME_HEIGHT 16.0
#define CG_FLAME_FONT_SIZE 12.0
#define CG_FLAME_CHAR_WIDTH 7.0      /* average glyph width at FONT_SIZE, for truncation */
#define CG_FLAME_MIN_BOX 0.1         /* boxes narrower than this (pixels) are left out */
#define CG_FLAME_BACKGROUND "#f8f8f0"
/* The outline every box gets unless the caller asks for another. */
#define CG_FLAME_STROKE "stroke=\"" CG_FLAME_BACKGROUND "\" stroke-width=\"0.5\""

/* Writes s[0..len) with XML's special characters escaped; control
 * characters and bytes that are not well-formed UTF-8 become '?'. */
void cg_flame_put_escaped(FILE *out, const char *s, size_t len);
/* The XML declaration, the <svg> element of the given height (the width
 * is CG_FLAME_WIDTH) and the background. */
void cg_flame_begin(FILE *out, double height);
/* Opens a box: "<g><title>"; the caller writes the tooltip text next. */
void cg_flame_box_begin(FILE *out);
/* Closes the tooltip and draws the box at (left, y), w pixels wide, in
 * rgb(r,g,b) with the outline `stroke` (attributes; CG_FLAME_STROKE for
 * the usual one) and the name cut to what fits. */
void cg_flame_box_end(FILE *out, const char *name, size_t name_len, double left, double y,
		      double w, const int rgb[3], const char *stroke);
void cg_flame_end(FILE *out);

#endif
