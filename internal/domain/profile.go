package domain

// FieldKind is how a profile field's value is read.
type FieldKind int

// The kinds of profile fields.
const (
	FieldText   FieldKind = iota // free text of at most Max characters
	FieldDate                    // a date, YYYY-MM-DD
	FieldGender                  // Male, Female or Other
)

// ProfileField is one field of a profile: its name in the API (the JSON
// member and the form field of product.md §7), how it is read, and who has
// it.
type ProfileField struct {
	Name string
	Kind FieldKind
	// Max is the longest text, in characters, for FieldText.
	Max int
	// Required fields may not be empty (the names).
	Required bool
	// Role is the only role that has the field; "" for every role
	// (product.md §5: provider details for providers, patient details for
	// patients, neither for admins).
	Role string
	// Of is the field's value in a profile.
	Of func(*Profile) *string
}

// For reports whether users of role have the field.
func (f ProfileField) For(role string) bool { return f.Role == "" || f.Role == role }

// ProfileFields are the fields of a profile, the one list of them on the
// server: the API reads and writes a profile by it, and the service
// validates one by it. (The store maps the same fields to the generated
// query parameters, column by column.)
var ProfileFields = []ProfileField{
	{Name: "firstname", Max: 100, Required: true, Of: func(p *Profile) *string { return &p.Firstname }},
	{Name: "lastname", Max: 100, Required: true, Of: func(p *Profile) *string { return &p.Lastname }},
	{Name: "phone", Max: 30, Of: func(p *Profile) *string { return &p.Phone }},
	{Name: "dob", Kind: FieldDate, Of: func(p *Profile) *string { return &p.DOB }},
	{Name: "gender", Kind: FieldGender, Of: func(p *Profile) *string { return &p.Gender }},
	{Name: "address", Max: 200, Of: func(p *Profile) *string { return &p.Address }},
	{Name: "city", Max: 100, Of: func(p *Profile) *string { return &p.City }},
	{Name: "state", Max: 100, Of: func(p *Profile) *string { return &p.State }},
	{Name: "country", Max: 100, Of: func(p *Profile) *string { return &p.Country }},
	{Name: "zipcode", Max: 20, Of: func(p *Profile) *string { return &p.Zipcode }},
	{Name: "bio", Max: 2000, Of: func(p *Profile) *string { return &p.Bio }},
	{Name: "taxid", Max: 50, Role: RoleProvider, Of: func(p *Profile) *string { return &p.TaxID }},
	{Name: "licensenumber", Max: 50, Role: RoleProvider, Of: func(p *Profile) *string { return &p.LicenseNumber }},
	{Name: "insurancenumber", Max: 50, Role: RoleProvider, Of: func(p *Profile) *string { return &p.InsuranceNumber }},
	{Name: "specialization", Max: 100, Role: RoleProvider, Of: func(p *Profile) *string { return &p.Specialization }},
	{Name: "bloodgroup", Max: 10, Role: RolePatient, Of: func(p *Profile) *string { return &p.BloodGroup }},
	{Name: "primphysician", Max: 100, Role: RolePatient, Of: func(p *Profile) *string { return &p.PrimPhysician }},
}
