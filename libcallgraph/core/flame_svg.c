/*
 * flame_svg.c — drawing a flame graph's boxes in SVG (see flame_svg.h).
 */
#include "flame_svg.h"

void cg_flame_put_escaped(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: putc(s[i], out);
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
