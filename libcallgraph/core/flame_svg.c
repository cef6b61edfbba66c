/*
 * flame_svg.c — drawing a flame graph's boxes in SVG (see flame_svg.h).
 */
#include "flame_svg.h"

/* Length of the well-formed UTF-8 sequence at s (at most len bytes), or
 * 0 when it is not one (a name cut to fit a box may end mid-character). */
static size_t utf8_length(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xBF;   /* range of the second byte */
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		lo = c == 0xE0 ? 0xA0 : 0x80;   /* no overlong forms */
		hi = c == 0xED ? 0x9F : 0xBF;   /* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF;
	} else
		return 0;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

void cg_flame_put_escaped(FILE *out, const char *s, size_t len)
{
	/* Names come from binaries and profiles: a control character or a
	 * byte that is not UTF-8 would make the file unreadable as XML, so
	 * it becomes '?'. */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			size_t n = utf8_length((const unsigned char *)s + i, len - i);
			if (n) {
				fwrite(s + i, 1, n, out);
				i += n - 1;
			} else {
				putc('?', out);
			}
			continue;
		}
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: putc(c < 0x20 ? '?' : c, out);
		}
	}
}

void cg_flame_begin(FILE *out, double height)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" "
		"font-size=\"%.0f\">\n",
		CG_FLAME_WIDTH, height, CG_FLAME_WIDTH, height, CG_FLAME_FONT_SIZE);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n",
		CG_FLAME_BACKGROUND);
}

void cg_flame_box_begin(FILE *out)
{
	fputs("<g><title>", out);
}

void cg_flame_box_end(FILE *out, const char *name, size_t name_len, double left, double y,
		      double w, const int rgb[3], const char *stroke)
{
	fprintf(out,
		"</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" "
		"fill=\"rgb(%d,%d,%d)\" %s/>",
		left, y, w, CG_FLAME_FRAME_HEIGHT - 1, rgb[0], rgb[1], rgb[2], stroke);
	/* the name, cut to what fits in the box */
	size_t fits = w > 6 ? (size_t)((w - 6) / CG_FLAME_CHAR_WIDTH) : 0;
	if (fits >= 3) {
		fprintf(out, "<text x=\"%.2f\" y=\"%.1f\">", left + 3,
			y + CG_FLAME_FRAME_HEIGHT - 4.5);
		if (name_len <= fits) {
			cg_flame_put_escaped(out, name, name_len);
		} else {
			cg_flame_put_escaped(out, name, fits - 2);
			fputs("..", out);
		}
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

void cg_flame_end(FILE *out)
{
	fputs("</svg>\n", out);
}
