package analysis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"golang.org/x/image/draw"

	"github.com/medishare/medishare/internal/domain"
)

// OpenAIConfig reaches any server that speaks the OpenAI Chat Completions
// protocol: OpenAI, Azure OpenAI, a local Ollama, vLLM or LM Studio.
type OpenAIConfig struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1
	APIKey  string // sent as a bearer token; may be empty for a local server
	Model   string
	Timeout time.Duration // for one analysis, retries included
}

// OpenAI asks a vision model for an analysis of the de-identified image.
// Only pixels re-rendered from the image leave the server (never the file,
// never DICOM headers), at most 1024 px a side, with the modality, the
// body part and the built-in measurements; never a caption, file name,
// name, id or date. Images likely to carry identifying text in their
// pixels are not sent: the built-in analysis is returned instead, with a
// warning saying why.
type OpenAI struct {
	client  openai.Client
	model   string
	host    string
	timeout time.Duration
}

// The prompt and the schema the answers are held to; each result records
// their versions.
const (
	PromptVersion = "medishare-prompt-1"
	SchemaVersion = "medishare-analysis-schema-1"
	// DeIdentification says what was done to the image before it left.
	DeIdentification = "pixels re-rendered to PNG without metadata, at most 1024 px, no DICOM header, no text fields"
)

// Bounds on what an external model may answer: longer is cut, more is dropped.
const (
	maxDescription = 2000
	maxEntry       = 300
	maxEntries     = 10
	maxSendSide    = 1024
)

// NewOpenAI makes the provider. Errors: EINVALID for a base URL that is not
// http(s) or a missing model.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, domain.Errorf(domain.EINVALID, "MEDISHARE_AI_BASE_URL must be an http or https address")
	}
	if cfg.Model == "" {
		return nil, domain.Errorf(domain.EINVALID, "MEDISHARE_AI_MODEL is required with MEDISHARE_AI_BASE_URL")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	client := openai.NewClient(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(1),
		option.WithRequestTimeout(cfg.Timeout),
	)
	return &OpenAI{client: client, model: cfg.Model, host: u.Host, timeout: cfg.Timeout}, nil
}

// Name is the provider name of the settings.
func (o *OpenAI) Name() string { return "openai" }

// SendsTo is the model server's host, where images go: the settings screen names it.
func (o *OpenAI) SendsTo() string { return o.host }

// burnedInModalities are the DICOM modalities whose pixels often carry
// identifying text (ultrasound, secondary capture, other).
var burnedInModalities = []string{"US", "SC", "OT"}

// Discloses says whether analysing an image with these facts sends it out,
// and to where: the service records each send as a disclosure.
func (o *OpenAI) Discloses(f Facts) (to string, sent bool) {
	return o.host, withheldBecause(f) == ""
}

// withheldBecause is why an image must not leave the server, or "".
func withheldBecause(f Facts) string {
	if f.BurnedInAnnotation {
		return "its DICOM header says it carries burned-in annotation"
	}
	if slices.Contains(burnedInModalities, f.Modality) {
		return "images of modality " + f.Modality + " often carry identifying text in their pixels"
	}
	return ""
}

// Analyze asks the model. Errors: EUNAVAILABLE when the server fails, is too
// slow or answers something that is not the schema.
func (o *OpenAI) Analyze(ctx context.Context, in Input) (Result, error) {
	local, err := Builtin{}.Analyze(ctx, in)
	if err != nil {
		return Result{}, err
	}
	if why := withheldBecause(in.Facts); why != "" {
		local.Warnings = append(local.Warnings, "Not sent to the external model: "+why+".")
		return local, nil
	}
	picture, err := encodeForSending(in.Pixels)
	if err != nil {
		return Result{}, err
	}
	sum := sha256.Sum256(picture)
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	completion, err := o.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: o.model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(systemPrompt),
			openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart(promptContext(in.Facts, local.Measurements)),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
					URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(picture),
				}),
			}),
		},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
				Name:   "medical_image_analysis",
				Strict: openai.Bool(true),
				Schema: answerSchema,
			}},
		},
	})
	if err != nil {
		return Result{}, unavailable("the model server failed", err)
	}
	if len(completion.Choices) == 0 {
		return Result{}, unavailable("no answer", nil)
	}
	got, err := parseAnswer(completion.Choices[0].Message.Content)
	if err != nil {
		return Result{}, unavailable("an answer that is not the schema", err)
	}
	got.Measurements = local.Measurements
	got.Provider, got.Model = o.Name(), completion.Model
	if got.Model == "" {
		got.Model = o.model
	}
	got.Warnings = append([]string{"Written by an AI model: it can be wrong and is not a diagnosis."}, got.Warnings...)
	got.Provenance = &Provenance{PromptVersion: PromptVersion, SchemaVersion: SchemaVersion,
		ImageSHA256: hex.EncodeToString(sum[:]), DeIdentification: DeIdentification, SentTo: o.host}
	return got, nil
}

func unavailable(what string, err error) error {
	return domain.Wrap(domain.EUNAVAILABLE, fmt.Errorf("analysis: %s: %w", what, err), "The analysis service is not available right now. Please try again later.")
}

// encodeForSending re-renders the pixels as a fresh PNG (no metadata of
// any kind), at most maxSendSide a side.
func encodeForSending(src image.Image) ([]byte, error) {
	b := src.Bounds()
	if side := max(b.Dx(), b.Dy()); side > maxSendSide {
		w, h := b.Dx()*maxSendSide/side, b.Dy()*maxSendSide/side
		dst := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		src = dst
	}
	var out bytes.Buffer
	if err := png.Encode(&out, src); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

const systemPrompt = `You are assisting a clinician who reviews a medical image. You receive the image (de-identified pixels only), its modality and body part when known, and measurements of its technical quality made by software. Describe what is visible, list possible findings as a differential diagnosis with a confidence from 0 to 1 for each, suggest treatment and follow-up only where the image supports them, and give warnings about image quality or uncertainty. You do not know the patient. Say so when the image does not allow a conclusion. Answer only with JSON that matches the schema.`

// promptContext is the text that goes with the image: modality, body part and
// the measurements, and nothing a person typed.
func promptContext(f Facts, m []Measurement) string {
	var b strings.Builder
	if f.Modality != "" {
		fmt.Fprintf(&b, "Modality: %s\n", f.Modality)
	}
	if f.BodyPart != "" {
		fmt.Fprintf(&b, "Body part: %s\n", f.BodyPart)
	}
	b.WriteString("Measurements of image quality:\n")
	for _, x := range m {
		fmt.Fprintf(&b, "- %s: %v%s\n", x.Label, x.Value, x.Unit)
	}
	return b.String()
}

// answerSchema is what the model must answer (strict structured output).
var answerSchema = map[string]any{
	"type":                 "object",
	"additionalProperties": false,
	"required":             []string{"description", "differentialDiagnosis", "treatment", "followUp", "warnings", "confidence"},
	"properties": map[string]any{
		"description": map[string]any{"type": "string"},
		"differentialDiagnosis": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"condition", "confidence"},
			"properties": map[string]any{"condition": map[string]any{"type": "string"}, "confidence": map[string]any{"type": "number"}},
		}},
		"treatment":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"followUp":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"warnings":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"confidence": map[string]any{"type": []string{"number", "null"}},
	},
}

// parseAnswer reads the model's JSON strictly (every field present, no
// other), then bounds it: confidences into 0..1, lists to maxEntries, texts
// to their lengths.
func parseAnswer(content string) (Result, error) {
	var raw struct {
		Description           *string `json:"description"`
		DifferentialDiagnosis *[]struct {
			Condition  *string  `json:"condition"`
			Confidence *float64 `json:"confidence"`
		} `json:"differentialDiagnosis"`
		Treatment  *[]string       `json:"treatment"`
		FollowUp   *[]string       `json:"followUp"`
		Warnings   *[]string       `json:"warnings"`
		Confidence json.RawMessage `json:"confidence"`
	}
	dec := json.NewDecoder(strings.NewReader(content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Result{}, err
	}
	if raw.Description == nil || raw.DifferentialDiagnosis == nil || raw.Treatment == nil || raw.FollowUp == nil ||
		raw.Warnings == nil || raw.Confidence == nil {
		return Result{}, fmt.Errorf("a required field is missing")
	}
	out := Result{Description: cut(*raw.Description, maxDescription), Treatment: entries(*raw.Treatment),
		FollowUp: entries(*raw.FollowUp), Warnings: entries(*raw.Warnings), DifferentialDiagnosis: []Condition{}}
	for _, c := range (*raw.DifferentialDiagnosis)[:min(len(*raw.DifferentialDiagnosis), maxEntries)] {
		if c.Condition == nil || c.Confidence == nil {
			return Result{}, fmt.Errorf("a condition without its name or confidence")
		}
		out.DifferentialDiagnosis = append(out.DifferentialDiagnosis, Condition{Condition: cut(*c.Condition, maxEntry), Confidence: clamp01(*c.Confidence)})
	}
	if string(raw.Confidence) != "null" {
		var c float64
		if err := json.Unmarshal(raw.Confidence, &c); err != nil {
			return Result{}, fmt.Errorf("confidence is not a number: %w", err)
		}
		c = clamp01(c)
		out.Confidence = &c
	}
	return out, nil
}

func entries(list []string) []string {
	out := make([]string, 0, min(len(list), maxEntries))
	for _, s := range list[:min(len(list), maxEntries)] {
		out = append(out, cut(s, maxEntry))
	}
	return out
}

// cut shortens s to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }
