package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/medimg/synth"
	"github.com/medishare/medishare/internal/service"
)

// demoImages are the images the demo provider uploads for the demo patient
// on a fresh development database, so that the lists, the audit log, the
// patient's access history and the admin dashboard have something real to
// show. They are drawn here: no patient's picture is in the repository.
var demoImages = []struct{ caption, fileName string }{
	{"Chest X-ray, PA view (demo)", "demo-chest.png"},
	{"Left knee X-ray, lateral view (demo)", "demo-knee.png"},
}

// demoMeta is where the demo's own actions come from, as the audit log shows it.
var demoMeta = domain.RequestMeta{IP: "127.0.0.1", UserAgent: "MediShare demo set-up"}

// ensureDemoImages uploads the demo images once (a file in the data folder
// remembers it), through the services, so every step is encrypted and
// audited like a real one, and has the demo provider open each, so the
// patient's access history shows who did.
func ensureDemoImages(ctx context.Context, s *service.Services, dataDir string, accounts map[string]demoAccount, logger *slog.Logger) error {
	return demoOnce(ctx, s, filepath.Join(dataDir, "demo-images.done"), accounts, func(provider, patient *domain.Principal) error {
		return uploadDemoImages(ctx, s, provider, patient, logger)
	})
}

// demoOnce runs make with the demo provider and patient signed in, unless
// the file done says it ran already, and then writes done.
func demoOnce(ctx context.Context, s *service.Services, done string, accounts map[string]demoAccount, make func(provider, patient *domain.Principal) error) error {
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	provider, err := demoSignIn(ctx, s, accounts[domain.RoleProvider])
	if err != nil {
		return err
	}
	patient, err := demoSignIn(ctx, s, accounts[domain.RolePatient])
	if err != nil {
		return err
	}
	if err := make(provider, patient); err != nil {
		return err
	}
	return os.WriteFile(done, nil, 0o600)
}

func uploadDemoImages(ctx context.Context, s *service.Services, provider, patient *domain.Principal, logger *slog.Logger) error {
	for i, d := range demoImages {
		var file bytes.Buffer
		if err := png.Encode(&file, demoRadiograph(512, i)); err != nil {
			return err
		}
		form := &partList{parts: []service.UploadPart{
			{Name: "caption", Value: d.caption},
			{Name: "patientId", Value: patient.User.ID},
			{Name: "file", FileName: d.fileName, File: &file},
		}}
		im, err := s.Images.Upload(ctx, provider, form, demoMeta)
		if err != nil {
			return fmt.Errorf("demo image: %w", err)
		}
		if _, err := s.Images.Contents(ctx, provider, im.ID, domain.ActionView, demoMeta); err != nil {
			return fmt.Errorf("demo image view: %w", err)
		}
	}
	logger.Info("demo images uploaded (development only)", "count", len(demoImages))
	return nil
}

// ensureDemoStudy stores, once, a synthetic CT study of three series for
// the demo patient, instance by instance as DICOMweb does, so the studies'
// screens have something to show.
func ensureDemoStudy(ctx context.Context, s *service.Services, dataDir string, accounts map[string]demoAccount, logger *slog.Logger) error {
	return demoOnce(ctx, s, filepath.Join(dataDir, "demo-study.done"), accounts, func(provider, patient *domain.Principal) error {
		return storeDemoStudy(ctx, s, provider, patient, logger)
	})
}

func storeDemoStudy(ctx context.Context, s *service.Services, provider, patient *domain.Principal, logger *slog.Logger) error {
	limits, err := s.Images.PrepareStow(ctx, provider, patient.User.ID, demoMeta)
	if err != nil {
		return err
	}
	px := synth.NewPixels(256, 256)
	var studyID string
	instances := synth.Study("Khan^Ayesha", "DEMO-1", "CT chest (demo)", "CT", 4, 3, 2)
	for _, in := range instances {
		stored, err := s.Images.StoreInstance(ctx, provider, patient.User.ID, limits, bytes.NewReader(px.File(in)), demoMeta)
		if err != nil {
			return fmt.Errorf("demo study: %w", err)
		}
		studyID = stored.Study.ID
	}
	caption := "CT chest, three series (demo)"
	if _, err := s.Images.Update(ctx, provider, studyID, service.ImageChange{Caption: &caption}, demoMeta); err != nil {
		return fmt.Errorf("demo study caption: %w", err)
	}
	logger.Info("demo study stored (development only)", "instances", len(instances))
	return nil
}

// demoSignIn signs a demo account in and returns it as the services see a caller.
func demoSignIn(ctx context.Context, s *service.Services, a demoAccount) (*domain.Principal, error) {
	sess, err := s.Sessions.Login(ctx, a.Email, a.Password, demoMeta)
	if err != nil {
		return nil, fmt.Errorf("demo sign-in %s: %w", a.Email, err)
	}
	return s.Sessions.Authenticate(ctx, sess.AccessToken)
}

// partList is an upload form held in memory.
type partList struct{ parts []service.UploadPart }

func (l *partList) Next() (service.UploadPart, error) {
	if len(l.parts) == 0 {
		return service.UploadPart{}, io.EOF
	}
	p := l.parts[0]
	l.parts = l.parts[1:]
	return p, nil
}

// demoRadiograph draws something that reads as a radiograph at a glance:
// a dark field, a bright rounded body with soft edges, and two darker
// lobes (the first image) or a band (the second), with a little grain.
func demoRadiograph(size, variant int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, size, size))
	c := float64(size) / 2
	for y := range size {
		for x := range size {
			dx, dy := (float64(x)-c)/c, (float64(y)-c)/c
			v := 20.0
			body := 1 - (dx*dx/0.55 + dy*dy/0.8)
			if body > 0 {
				v += 180 * math.Min(1, body*3)
			}
			if variant == 0 { // lungs
				for _, side := range []float64{-0.32, 0.32} {
					if lobe := 1 - ((dx-side)*(dx-side)/0.06 + (dy+0.05)*(dy+0.05)/0.3); lobe > 0 {
						v -= 110 * math.Min(1, lobe*2)
					}
				}
			} else if math.Abs(dy) < 0.06 && body > 0 { // joint space
				v -= 90
			}
			v += float64((x*7919+y*104729)%23) - 11 // grain
			img.SetGray(x, y, color.Gray{Y: uint8(math.Max(0, math.Min(255, v)))})
		}
	}
	return img
}
