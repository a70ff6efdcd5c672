package medimg

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// Chunks that carry metadata (text, EXIF, timestamps) and nothing a decoder
// needs.
var droppedPNGChunks = map[string]bool{"eXIf": true, "tEXt": true, "zTXt": true, "iTXt": true, "tIME": true}

// cleanPNG checks the signature and IHDR before anything else (so a header
// claiming 50000x50000 is refused at once), then walks the chunks, dropping
// metadata and copying the rest unchanged.
func cleanPNG(dst io.Writer, src io.Reader) (Info, error) {
	br := bufio.NewReaderSize(src, copyBufSize)
	bw := bufio.NewWriterSize(dst, copyBufSize)

	sig := make([]byte, len(magicPNG))
	if _, err := io.ReadFull(br, sig); err != nil {
		return Info{}, readErr(err)
	}
	if !bytes.Equal(sig, magicPNG) {
		return Info{}, errInvalidType()
	}
	w, h, err := readIHDR(br, bw, sig)
	if err != nil {
		return Info{}, err
	}

	var hdr [8]byte
	buf := make([]byte, copyBufSize)
	crc := crc32.NewIEEE()
	sawIDAT := false
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return Info{}, readErr(err)
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		typ := hdr[4:8]
		if n > 0x7FFFFFFF || !isChunkType(typ) || string(typ) == "IHDR" {
			return Info{}, errInvalidType()
		}
		keep := !droppedPNGChunks[string(typ)]
		crc.Reset()
		crc.Write(typ)
		var out io.Writer = crc
		if keep {
			if _, err := bw.Write(hdr[:]); err != nil {
				return Info{}, writeErr(err)
			}
			out = io.MultiWriter(bw, crc)
		}
		if err := copyN(out, br, int64(n), buf); err != nil {
			return Info{}, err
		}
		var sum [4]byte
		if _, err := io.ReadFull(br, sum[:]); err != nil {
			return Info{}, readErr(err)
		}
		if binary.BigEndian.Uint32(sum[:]) != crc.Sum32() {
			return Info{}, errInvalidType()
		}
		if keep {
			if _, err := bw.Write(sum[:]); err != nil {
				return Info{}, writeErr(err)
			}
		}
		switch string(typ) {
		case "IDAT":
			sawIDAT = true
		case "IEND":
			if !sawIDAT {
				return Info{}, errInvalidType()
			}
			if err := flush(bw); err != nil {
				return Info{}, err
			}
			return Info{ContentType: PNG, Width: w, Height: h}, drain(br)
		}
	}
}

// readIHDR reads and checks the header chunk, then writes the signature and
// the chunk.
func readIHDR(br *bufio.Reader, bw *bufio.Writer, sig []byte) (w, h int, err error) {
	var c [8 + 13 + 4]byte // length, type, data, CRC
	if _, err := io.ReadFull(br, c[:]); err != nil {
		return 0, 0, readErr(err)
	}
	if binary.BigEndian.Uint32(c[:4]) != 13 || string(c[4:8]) != "IHDR" ||
		crc32.ChecksumIEEE(c[4:21]) != binary.BigEndian.Uint32(c[21:]) {
		return 0, 0, errInvalidType()
	}
	uw, uh := binary.BigEndian.Uint32(c[8:12]), binary.BigEndian.Uint32(c[12:16])
	if uw == 0 || uh == 0 || uw > 0x7FFFFFFF || uh > 0x7FFFFFFF || !validPNGDepth(c[17], c[16]) {
		return 0, 0, errInvalidType()
	}
	if uw > maxImageSide || uh > maxImageSide {
		return 0, 0, errTooLarge()
	}
	w, h = int(uw), int(uh)
	if err := checkDimensions(w, h); err != nil {
		return 0, 0, err
	}
	if _, err := bw.Write(sig); err != nil {
		return 0, 0, writeErr(err)
	}
	if _, err := bw.Write(c[:]); err != nil {
		return 0, 0, writeErr(err)
	}
	return w, h, nil
}

// validPNGDepth reports the colour type and bit depth pairs the PNG spec allows.
func validPNGDepth(colorType, depth byte) bool {
	switch colorType {
	case 0:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16
	case 3:
		return depth == 1 || depth == 2 || depth == 4 || depth == 8
	case 2, 4, 6:
		return depth == 8 || depth == 16
	}
	return false
}

func isChunkType(t []byte) bool {
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
