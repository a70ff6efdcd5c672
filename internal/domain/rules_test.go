package domain

import (
	"slices"
	"testing"
	"time"
)

func TestShareStatus(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	before, after := now.Add(-time.Minute), now.Add(time.Hour)
	tests := []struct {
		name  string
		share Share
		want  string
		opens bool
	}{
		{"waiting for the code", Share{ExpiresAt: after}, SharePending, false},
		{"verified", Share{ExpiresAt: after, VerifiedAt: &before}, ShareVerified, true},
		{"expired before verification", Share{ExpiresAt: before}, ShareExpired, false},
		{"expired after verification", Share{ExpiresAt: before, VerifiedAt: &before}, ShareExpired, false},
		{"expires exactly now", Share{ExpiresAt: now, VerifiedAt: &before}, ShareExpired, false},
		{"voided by wrong codes", Share{ExpiresAt: after, VoidedAt: &before}, ShareVoided, false},
		{"revoked wins over everything", Share{ExpiresAt: before, VerifiedAt: &before, VoidedAt: &before, RevokedAt: &before}, ShareRevoked, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.share.Status(now); got != tt.want {
				t.Errorf("Status = %q, want %q", got, tt.want)
			}
			if got := tt.share.Opens(now); got != tt.opens {
				t.Errorf("Opens = %v, want %v", got, tt.opens)
			}
		})
	}
}

func TestImageSeal(t *testing.T) {
	now := time.Now()
	verified := now.Add(-time.Minute)
	pending := &Share{ID: "s1", ImageID: "i1", Caption: "suspected tumour", SharedBy: Person{ID: "dr"}, SharedWith: Person{ID: "pt"},
		CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(time.Hour)}
	im := Image{ID: "i1", Caption: "suspected tumour", ContentType: TypeDICOM, FileName: "ct.dcm", Size: 42,
		UploadedBy: Person{ID: "dr", Firstname: "Ada"}, Patient: Person{ID: "pt", Firstname: "Bo"},
		DICOM: &DICOMFacts{Modality: "CT", Rows: 2, Columns: 2}, CreatedAt: now, ViaShare: pending}

	sealed := im.SealedUnlessOpen(now)
	want := Image{ID: "i1", ContentType: TypeDICOM, Sealed: true, ViaShare: &Share{ID: "s1", ImageID: "i1",
		SharedBy: Person{ID: "dr"}, SharedWith: Person{ID: "pt"}, CreatedAt: pending.CreatedAt, ExpiresAt: pending.ExpiresAt}}
	if sealed.Caption != "" || sealed.FileName != "" || sealed.Size != 0 || sealed.DICOM != nil || sealed.Patient != (Person{}) ||
		sealed.UploadedBy != (Person{}) || !sealed.CreatedAt.IsZero() || !sealed.Sealed || *sealed.ViaShare != *want.ViaShare {
		t.Errorf("sealed image keeps more than the sharer, the times and the type: %+v (share %+v)", sealed, *sealed.ViaShare)
	}

	open := im
	open.ViaShare = &Share{ID: "s1", ExpiresAt: now.Add(time.Hour), VerifiedAt: &verified}
	if got := open.SealedUnlessOpen(now); got.Sealed || got.Caption != im.Caption {
		t.Errorf("a verified share's image was sealed: %+v", got)
	}
	own := im
	own.ViaShare = nil
	if got := own.SealedUnlessOpen(now); got.Sealed {
		t.Error("the uploader's own image was sealed")
	}
}

func TestImageHasPixels(t *testing.T) {
	tests := []struct {
		name string
		im   Image
		want bool
	}{
		{"jpeg", Image{ContentType: TypeJPEG}, true},
		{"png", Image{ContentType: TypePNG}, true},
		{"pdf", Image{ContentType: TypePDF}, false},
		{"dicom image", Image{ContentType: TypeDICOM, DICOM: &DICOMFacts{Rows: 64, Columns: 64}}, true},
		{"dicom report", Image{ContentType: TypeDICOM, DICOM: &DICOMFacts{Modality: "SR"}}, false},
	}
	for _, tt := range tests {
		if got := tt.im.HasPixels(); got != tt.want {
			t.Errorf("%s: HasPixels = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// seeded are the permissions the migrations give each role, for the rules
// that read them.
var seeded = map[string][]string{
	RolePatient: {PermImagesViewShared, PermUsersList, PermAuditRead, PermMessagesSend},
	RoleProvider: {PermImagesUpload, PermImagesShare, PermImagesDelete, PermImagesViewShared, PermAnalysisRun,
		PermUsersList, PermAuditRead, PermMessagesSend},
	RoleAdmin: {PermImagesUpload, PermImagesShare, PermImagesDelete, PermImagesViewShared, PermAnalysisRun,
		PermUsersList, PermUsersManage, PermAuditRead, PermRolesRead, PermSettingsManage, PermMessagesSend,
		PermImagesReadAll, PermImagesManageAll, PermAuditReadAll, PermSystemMonitor},
}

func TestDirectory(t *testing.T) {
	caller := func(role string) *Principal {
		return &Principal{User: User{ID: "me", Role: role, Active: true}, Permissions: seeded[role]}
	}
	user := func(id, role string, active bool) User { return User{ID: id, Role: role, Active: active} }
	patient, provider, admin := user("p", RolePatient, true), user("d", RoleProvider, true), user("a", RoleAdmin, true)
	gonePatient, goneProvider := user("p2", RolePatient, false), user("d2", RoleProvider, false)
	waiting := user("d3", RoleProvider, true) // waiting for an admin's approval: only admins find them
	waiting.AwaitingApproval = true
	tests := []struct {
		role  string
		sees  []User
		hides []User
	}{
		{RoleAdmin, []User{patient, provider, admin, gonePatient, goneProvider, waiting}, nil},
		{RoleProvider, []User{patient, provider}, []User{admin, gonePatient, goneProvider, waiting}},
		{RolePatient, []User{provider, admin}, []User{patient, gonePatient, goneProvider, waiting}},
	}
	for _, tt := range tests {
		dir := DirectoryOf(caller(tt.role))
		for _, u := range tt.sees {
			if !dir.Includes(u) {
				t.Errorf("%s does not see %s %+v", tt.role, u.Role, u)
			}
		}
		for _, u := range tt.hides {
			if dir.Includes(u) {
				t.Errorf("%s sees %s %+v", tt.role, u.Role, u)
			}
		}
		if !dir.Includes(User{ID: "me", Role: tt.role}) {
			t.Errorf("%s does not see themselves", tt.role)
		}
	}
	byProvider := DirectoryOf(caller(RoleProvider))
	if got := byProvider.OfRole(RolePatient); len(got.Roles) != 1 || got.Roles[0] != RolePatient || !got.ReachableOnly {
		t.Errorf("a provider's patients: %+v", got)
	}
	if got := byProvider.OfRole(RoleAdmin); len(got.Roles) != 0 || got.Self != "" {
		t.Errorf("a provider may look for admins: %+v", got)
	}
	if got := byProvider.OfRole(RoleProvider); got.Self != "me" {
		t.Errorf("a provider looking for providers misses themselves: %+v", got)
	}
	if got := DirectoryOf(caller(RolePatient)).OfRole(RolePatient); len(got.Roles) != 0 || got.Self != "me" {
		t.Errorf("a patient looking for patients: %+v", got)
	}
	if got := byProvider.OfRole(""); len(got.Roles) != 2 {
		t.Errorf("no role filter narrowed the directory: %+v", got)
	}
	if got := DirectoryOf(caller(RoleAdmin)).Actives(); len(got) != 2 {
		t.Errorf("admins see only active accounts: %v", got)
	}
}

func TestProfilePublic(t *testing.T) {
	full := Profile{Firstname: "A", Lastname: "B", Phone: "1", DOB: "2000-01-01", Gender: "Other", Address: "x", City: "x",
		State: "x", Country: "x", Zipcode: "x", Bio: "bio", TaxID: "t", LicenseNumber: "L", InsuranceNumber: "i",
		Specialization: "S", BloodGroup: "O+", PrimPhysician: "Dr"}
	want := Profile{Firstname: "A", Lastname: "B", Bio: "bio", LicenseNumber: "L", Specialization: "S"}
	if got := full.Public(); got != want {
		t.Errorf("Public = %+v, want %+v", got, want)
	}
}

func TestPrincipalCan(t *testing.T) {
	var nobody *Principal
	if nobody.Can(PermUsersList) {
		t.Error("a nil principal holds a permission")
	}
	p := &Principal{User: User{Role: RoleProvider}, Permissions: []string{PermImagesUpload}}
	if !p.Can(PermImagesUpload) || p.Can(PermUsersManage) {
		t.Errorf("Can is wrong for %+v", p)
	}
	// The role's name grants nothing: only the permissions held count.
	if (&Principal{User: User{Role: RoleAdmin}}).Can(PermImagesReadAll) {
		t.Error("an admin without permissions reads every image")
	}
}

func TestPrincipalManages(t *testing.T) {
	own := Image{UploadedBy: Person{ID: "me"}}
	other := Image{UploadedBy: Person{ID: "someone"}}
	tests := []struct {
		name              string
		perms             []string
		ownImage, another bool
	}{
		{"provider", seeded[RoleProvider], true, false},
		{"admin", seeded[RoleAdmin], true, true},
		{"patient", seeded[RolePatient], false, false},
		{"any image, but not this action", []string{PermImagesManageAll}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Principal{User: User{ID: "me"}, Permissions: tt.perms}
			for _, action := range []string{PermImagesShare, PermImagesDelete} {
				if got := p.Manages(own, action); got != tt.ownImage {
					t.Errorf("%s of their own upload = %v, want %v", action, got, tt.ownImage)
				}
				if got := p.Manages(other, action); got != tt.another {
					t.Errorf("%s of another's upload = %v, want %v", action, got, tt.another)
				}
			}
		})
	}
}

func TestAuditScopeOf(t *testing.T) {
	tests := []struct {
		role  string
		all   bool
		kinds []string
	}{
		{RoleAdmin, true, nil},
		{RoleProvider, false, []string{"owner", "signin", "actor"}},
		{RolePatient, false, []string{"subject", "signin"}},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			got := AuditScopeOf(&Principal{User: User{ID: "me", Role: tt.role}, Permissions: seeded[tt.role]})
			if got.All != tt.all || !slices.Equal(got.Kinds, tt.kinds) || (!tt.all && got.UserID != "me") {
				t.Errorf("scope = %+v, want all %v, kinds %v", got, tt.all, tt.kinds)
			}
		})
	}
	// The scope follows the permissions, not the role's name.
	if got := AuditScopeOf(&Principal{User: User{ID: "me", Role: RoleAdmin}}); got.All {
		t.Errorf("an admin without audit:read-all reads everything: %+v", got)
	}
}

func TestImageOpensForReadersOfEverything(t *testing.T) {
	now := time.Now()
	pending := &Share{ID: "s1", ExpiresAt: now.Add(time.Hour)}
	im := Image{ID: "i1", Caption: "knee", ContentType: TypePNG, ViaShare: pending}
	if im.Opens(now) {
		t.Fatal("a share not verified opens")
	}
	im.ReadAll = true
	if !im.Opens(now) {
		t.Error("a reader of every image must open a share not verified")
	}
	if got := im.SealedUnlessOpen(now); got.Sealed || got.Caption != "knee" {
		t.Errorf("a reader of every image got it sealed: %+v", got)
	}
}

func TestPageOf(t *testing.T) {
	tests := []struct {
		total, limit, pages int
	}{{0, 10, 1}, {1, 10, 1}, {10, 10, 1}, {11, 10, 2}, {5, 0, 1}}
	for _, tt := range tests {
		if got := (PageOf{Limit: tt.limit, TotalItems: tt.total}).TotalPages(); got != tt.pages {
			t.Errorf("%d items by %d: %d pages, want %d", tt.total, tt.limit, got, tt.pages)
		}
	}
	if got := (Page{Page: 3, Limit: 10}).Offset(); got != 20 {
		t.Errorf("Offset = %d", got)
	}
}
