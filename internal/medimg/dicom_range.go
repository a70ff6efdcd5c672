package medimg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/suyashkumar/dicom"
	"github.com/suyashkumar/dicom/pkg/tag"
	"github.com/suyashkumar/dicom/pkg/vrraw"

	"github.com/medishare/medishare/internal/domain"
)

// StoredRange is the spread of a greyscale DICOM image's stored sample
// values (its first frame): the 1st and 99th percentiles, and the bits
// stored, so the analysis can say how much of the bit depth they use.
type StoredRange struct {
	P1, P99    int64
	BitsStored int
	Signed     bool
}

// UsedShare is the share of the stored bit depth the 1st-99th percentiles span.
func (r StoredRange) UsedShare() float64 {
	if r.BitsStored < 1 || r.BitsStored > 32 {
		return 0
	}
	return float64(r.P99-r.P1) / float64(uint64(1)<<uint(r.BitsStored)-1)
}

// rangeSamples bounds how many samples the percentiles are taken from.
const rangeSamples = 1 << 20

// StoredRange reads the stored DICOM file and measures its stored values,
// within the memory budget previews share. Errors: ErrNoPreview when there
// is nothing to measure (no pixels, colour or palette images, compressed
// frames other than RLE); ctx's error while waiting for memory.
func (p *Previewer) StoredRange(ctx context.Context, open Opener, size int64) (StoredRange, error) {
	pl, err := withOpen(open, func(src io.Reader) (plan, error) { return p.planDICOM(src, size, 1) })
	if err != nil {
		return StoredRange{}, err
	}
	if err := p.sem.Acquire(ctx, pl.bytes); err != nil {
		return StoredRange{}, fmt.Errorf("medimg: wait for memory: %w", err)
	}
	defer p.sem.Release(pl.bytes)
	return withOpen(open, storedRange)
}

func storedRange(src io.Reader) (r StoredRange, err error) {
	defer func() {
		if recover() != nil {
			r, err = StoredRange{}, ErrNoPreview
		}
	}()
	ds, g, err := parseDICOM(src, nil, true)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return StoredRange{}, ErrNoPreview
		}
		return StoredRange{}, err
	}
	if !g.hasPixels {
		return StoredRange{}, ErrNoPreview
	}
	p := readPixelModule(&ds, g.transferSyntax)
	e, err := ds.FindElementByTag(tag.PixelData)
	if err != nil || e.Value == nil || p.samples != 1 || p.photometric == "PALETTE COLOR" || p.rows < 1 || p.cols < 1 {
		return StoredRange{}, ErrNoPreview
	}
	info, ok := e.Value.GetValue().(dicom.PixelDataInfo)
	if !ok {
		return StoredRange{}, ErrNoPreview
	}
	var raw []byte
	switch {
	case info.IsEncapsulated && g.transferSyntax == tsRLE && len(info.Frames) > 0:
		if raw, err = decodeRLE(info.Frames[0].EncapsulatedData.Data, p); err != nil {
			return StoredRange{}, err
		}
		p.bo = binary.LittleEndian // decodeRLE writes little-endian samples
	case info.IsEncapsulated || !info.IntentionallyUnprocessed:
		return StoredRange{}, ErrNoPreview
	default:
		raw = info.UnprocessedValueData
		if p.bo == binary.BigEndian && p.bitsAllocated == 8 && e.RawValueRepresentation == vrraw.OtherWord {
			raw = swapPairs(raw)
		}
	}
	n := p.rows * p.cols
	if (p.bitsAllocated != 8 && p.bitsAllocated != 16 && p.bitsAllocated != 32) || len(raw)*8 < n*p.bitsAllocated {
		return StoredRange{}, ErrNoPreview
	}
	s := sampler{data: raw, p: p}
	step := max(1, n/rangeSamples)
	values := make([]int64, 0, n/step+1)
	for i := 0; i < n; i += step {
		values = append(values, s.at(i))
	}
	slices.Sort(values)
	return StoredRange{P1: values[len(values)/100], P99: values[len(values)*99/100], BitsStored: p.bitsStored, Signed: p.signed}, nil
}
