//! A plotters backend that writes a one-page PDF: lines, rectangles, circles and polygons as
//! vector paths, text as text in the embedded DejaVu Sans (the font the PNG is drawn with, so
//! both place every label alike).
//!
//! Why not `svg2pdf` (plotters' SVG converted): its text support subsets fonts through
//! `subsetter`, `write-fonts`, `read-fonts` and `skrifa`. On the project's shared 2-core
//! machine a cold release build (fat LTO) of plotters and DejaVu alone took 16-29 s, with
//! `svg2pdf` 115-174 s (+95 to +145 s); with this backend 22-24 s (+3 to +8 s): it needs only
//! `pdf-writer`, and `ttf-parser` and `miniz_oxide`, which the workspace already builds for
//! plotters and PNG. The price: the whole font is embedded (deflated, about 0.4 MB per file),
//! not a subset.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    text_anchor::{HPos, VPos},
};
use std::path::{Path, PathBuf};

/// PDF points per pixel of the drawing (72 per inch over 96).
const PT_PER_PX: f32 = 0.75;

/// A drawing that becomes a PDF file on [`DrawingBackend::present`].
pub(crate) struct PdfBackend {
    path: PathBuf,
    size: (u32, u32),
    content: pdf_writer::Content,
    presented: bool,
}

impl PdfBackend {
    pub(crate) fn new(path: &Path, size: (u32, u32)) -> PdfBackend {
        let mut content = pdf_writer::Content::new();
        // Pixels with y down, as plotters draws, onto points with y up.
        content.transform([
            PT_PER_PX,
            0.0,
            0.0,
            -PT_PER_PX,
            0.0,
            size.1 as f32 * PT_PER_PX,
        ]);
        content.set_line_join(pdf_writer::types::LineJoinStyle::RoundJoin);
        PdfBackend {
            path: path.to_path_buf(),
            size,
            content,
            presented: false,
        }
    }

    /// The PDF's bytes: one page of the drawing, and the font.
    fn to_pdf(&self, content: &[u8]) -> Vec<u8> {
        use pdf_writer::{Filter, Finish, Name, Pdf, Rect, Ref};
        let face = font();
        let upem = f32::from(face.units_per_em());
        let per_mille = |units: f32| units * 1000.0 / upem;
        let (catalog, pages, page, font_id, descriptor, file, content_id) = (
            Ref::new(1),
            Ref::new(2),
            Ref::new(3),
            Ref::new(4),
            Ref::new(5),
            Ref::new(6),
            Ref::new(7),
        );
        let mut pdf = Pdf::new();
        pdf.catalog(catalog).pages(pages);
        pdf.pages(pages).kids([page]).count(1);
        let (w, h) = (
            self.size.0 as f32 * PT_PER_PX,
            self.size.1 as f32 * PT_PER_PX,
        );
        let mut p = pdf.page(page);
        p.media_box(Rect::new(0.0, 0.0, w, h))
            .parent(pages)
            .contents(content_id);
        p.resources().fonts().pair(Name(b"F1"), font_id);
        p.finish();
        // A simple TrueType font in WinAnsi encoding: the labels are Latin-1 text ("µs").
        {
            let mut f = pdf.indirect(font_id).dict();
            f.pair(Name(b"Type"), Name(b"Font"));
            f.pair(Name(b"Subtype"), Name(b"TrueType"));
            f.pair(Name(b"BaseFont"), Name(b"DejaVuSans"));
            f.pair(Name(b"FirstChar"), 32);
            f.pair(Name(b"LastChar"), 255);
            f.insert(Name(b"Widths"))
                .array()
                .items((32u8..=255).map(|code| {
                    let advance = decode(code)
                        .and_then(|c| face.glyph_index(c))
                        .and_then(|g| face.glyph_hor_advance(g))
                        .unwrap_or(0);
                    per_mille(f32::from(advance))
                }));
            f.pair(Name(b"FontDescriptor"), descriptor);
            f.pair(Name(b"Encoding"), Name(b"WinAnsiEncoding"));
        }
        let bbox = face.global_bounding_box();
        pdf.font_descriptor(descriptor)
            .name(Name(b"DejaVuSans"))
            .flags(pdf_writer::types::FontFlags::NON_SYMBOLIC)
            .bbox(Rect::new(
                per_mille(f32::from(bbox.x_min)),
                per_mille(f32::from(bbox.y_min)),
                per_mille(f32::from(bbox.x_max)),
                per_mille(f32::from(bbox.y_max)),
            ))
            .italic_angle(0.0)
            .ascent(per_mille(f32::from(face.ascender())))
            .descent(per_mille(f32::from(face.descender())))
            .cap_height(per_mille(f32::from(face.capital_height().unwrap_or(1493))))
            .stem_v(80.0)
            .font_file2(file);
        let ttf = dejavu::sans::regular();
        let packed = miniz_oxide::deflate::compress_to_vec_zlib(ttf, 6);
        pdf.stream(file, &packed)
            .filter(Filter::FlateDecode)
            .pair(Name(b"Length1"), ttf.len() as i32);
        let packed = miniz_oxide::deflate::compress_to_vec_zlib(content, 6);
        pdf.stream(content_id, &packed).filter(Filter::FlateDecode);
        pdf.finish()
    }

    fn set_stroke(&mut self, color: BackendColor, width: u32) {
        let (r, g, b) = on_white(color);
        self.content
            .set_stroke_rgb(r, g, b)
            .set_line_width(width.max(1) as f32);
    }

    fn set_fill(&mut self, color: BackendColor) {
        let (r, g, b) = on_white(color);
        self.content.set_fill_rgb(r, g, b);
    }
}

/// The font plotters lays text out with (the PNG's).
fn font() -> ttf_parser::Face<'static> {
    ttf_parser::Face::parse(dejavu::sans::regular(), 0).expect("DejaVu Sans parses")
}

/// A color with its opacity blended onto the white page (plots draw on white; a PDF's own
/// transparency would need a graphics state per opacity for the same look).
fn on_white(c: BackendColor) -> (f32, f32, f32) {
    let a = c.alpha.clamp(0.0, 1.0) as f32;
    let mix = |v: u8| 1.0 - a * (1.0 - f32::from(v) / 255.0);
    (mix(c.rgb.0), mix(c.rgb.1), mix(c.rgb.2))
}

/// WinAnsi codes 0x80..=0x9F (the rest of 0x20..=0xFF is Latin-1).
const WIN_ANSI_80: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// The character of a WinAnsi code.
fn decode(code: u8) -> Option<char> {
    match code {
        0x20..=0x7e | 0xa0..=0xff => Some(char::from(code)),
        0x80..=0x9f => Some(WIN_ANSI_80[usize::from(code - 0x80)]).filter(|c| !c.is_control()),
        _ => None,
    }
}

/// The WinAnsi code of a character ('?' for one the encoding lacks).
fn encode(c: char) -> u8 {
    match u32::from(c) {
        v @ (0x20..=0x7e | 0xa0..=0xff) => v as u8,
        _ => WIN_ANSI_80
            .iter()
            .position(|&w| w == c && !w.is_control())
            .map_or(b'?', |i| 0x80 + i as u8),
    }
}

impl DrawingBackend for PdfBackend {
    type ErrorType = std::io::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<std::io::Error>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if !self.presented {
            let content = std::mem::replace(&mut self.content, pdf_writer::Content::new()).finish();
            std::fs::write(&self.path, self.to_pdf(&content))
                .map_err(DrawingErrorKind::DrawingError)?;
            self.presented = true;
        }
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if color.alpha > 0.0 {
            self.set_fill(color);
            self.content
                .rect(x as f32, y as f32, 1.0, 1.0)
                .fill_nonzero();
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        self.draw_path([from, to], style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let (w, h) = ((x1 - x0) as f32, (y1 - y0) as f32);
        if fill {
            // Filled like the bitmap's, which covers both end pixels.
            self.set_fill(style.color());
            self.content
                .rect(x0 as f32, y0 as f32, w + 1.0, h + 1.0)
                .fill_nonzero();
        } else {
            self.set_stroke(style.color(), style.stroke_width());
            self.content.rect(x0 as f32, y0 as f32, w, h).stroke();
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut points = path.into_iter();
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        self.set_stroke(style.color(), style.stroke_width());
        self.content.move_to(x as f32, y as f32);
        for (x, y) in points {
            self.content.line_to(x as f32, y as f32);
        }
        self.content.stroke();
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (cx, cy): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        // Four cubic Béziers, each a quarter circle (k = 4/3 (√2 − 1)).
        let (x, y, r) = (cx as f32, cy as f32, radius as f32);
        let k = 0.552_284_8 * r;
        let c = &mut self.content;
        c.move_to(x + r, y);
        c.cubic_to(x + r, y + k, x + k, y + r, x, y + r);
        c.cubic_to(x - k, y + r, x - r, y + k, x - r, y);
        c.cubic_to(x - r, y - k, x - k, y - r, x, y - r);
        c.cubic_to(x + k, y - r, x + r, y - k, x + r, y);
        c.close_path();
        if fill {
            self.set_fill(style.color());
            self.content.fill_nonzero();
        } else {
            self.set_stroke(style.color(), style.stroke_width());
            self.content.stroke();
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        if style.color().alpha == 0.0 {
            return Ok(());
        }
        let mut points = vert.into_iter();
        let Some((x, y)) = points.next() else {
            return Ok(());
        };
        self.set_fill(style.color());
        self.content.move_to(x as f32, y as f32);
        for (x, y) in points {
            self.content.line_to(x as f32, y as f32);
        }
        self.content.close_path().fill_nonzero();
        Ok(())
    }

    /// Text placed as plotters places the PNG's (its layout box, anchor and baseline at half
    /// the size below the box's top), in the same font at the same scale.
    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<std::io::Error>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let ((min_x, min_y), (max_x, max_y)) = style
            .layout_box(text)
            .map_err(|e| DrawingErrorKind::FontError(Box::new(e)))?;
        let (width, height) = (max_x - min_x, max_y - min_y);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let size = style.size();
        let transform = style.transform();
        let (ox, oy) = transform.transform(dx, dy + (size / 2.0).round() as i32);
        let (x, y) = ((pos.0 + ox) as f32, (pos.1 + oy) as f32);
        // The baseline's direction and the glyphs' up, in pixels with y down.
        let (ux, uy) = transform.transform(1000, 0);
        let (cos, sin) = (ux as f32 / 1000.0, uy as f32 / 1000.0);
        // plotters scales a font so its ascent minus descent is `size` pixels.
        let face = font();
        let em = size as f32 * f32::from(face.units_per_em())
            / f32::from(face.ascender() - face.descender());
        let bytes: Vec<u8> = text.chars().map(encode).collect();
        let (r, g, b) = on_white(color);
        self.content
            .set_fill_rgb(r, g, b)
            .begin_text()
            .set_font(pdf_writer::Name(b"F1"), em)
            .set_text_matrix([cos, sin, sin, -cos, x, y])
            .show(pdf_writer::Str(&bytes))
            .end_text();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win_ansi_round_trips_latin_1_and_its_extras() {
        for c in ['a', 'µ', '±', '×', '–', '€', '…'] {
            assert_eq!(decode(encode(c)), Some(c), "{c}");
        }
        assert_eq!(encode('≤'), b'?');
        assert_eq!(decode(0x81), None);
    }

    #[test]
    fn opacity_blends_onto_white() {
        let c = |alpha| BackendColor {
            alpha,
            rgb: (0, 0, 0),
        };
        assert_eq!(on_white(c(1.0)), (0.0, 0.0, 0.0));
        assert_eq!(on_white(c(0.0)), (1.0, 1.0, 1.0));
        let (g, _, _) = on_white(c(0.25));
        assert!((g - 0.75).abs() < 1e-6);
    }
}
