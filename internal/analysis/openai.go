package analysis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

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
// never DICOM headers), at most 1024 px a side, with the modality and the
// body part as codes of closed lists and the built-in measurements; never
// a caption, file name, name, id, date or any other free text. Only images
// the screen vouches for are sent (screen.go: DICOM of a modality whose
// pixels carry no text, without burned-in annotation); for the others the
// built-in analysis is returned, with a warning saying why, unless an
// admin lets unscreened images through.
type OpenAI struct {
	client  openai.Client
	model   string
	host    string
	timeout time.Duration
}

// The prompt and the schema the answers are held to; each result records
// their versions.
const (
	PromptVersion = "medishare-prompt-2"
	SchemaVersion = "medishare-analysis-schema-1"
	// DeIdentification says what was done to the image before it left.
	DeIdentification = "pixels re-rendered to PNG without metadata, at most 1024 px, no DICOM header, no text fields"
)

// NewOpenAI makes the provider. Errors: EINVALID for a base URL that is not
// http(s), or a model name missing, too long or with unprintable characters.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, domain.Errorf(domain.EINVALID, "MEDISHARE_AI_BASE_URL must be an http or https address")
	}
	if cfg.Model == "" {
		return nil, domain.Errorf(domain.EINVALID, "MEDISHARE_AI_MODEL is required with MEDISHARE_AI_BASE_URL")
	}
	if modelName(cfg.Model) != cfg.Model {
		return nil, domain.Errorf(domain.EINVALID, "MEDISHARE_AI_MODEL must be at most %d printable characters", maxModelName)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	client := openai.NewClient(
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(1),
		option.WithRequestTimeout(cfg.Timeout),
		option.WithMiddleware(capAnswer),
	)
	return &OpenAI{client: client, model: cfg.Model, host: u.Host, timeout: cfg.Timeout}, nil
}

// Name is the provider name of the settings.
func (o *OpenAI) Name() string { return "openai" }

// SendsTo is the model server's host, where images go: the settings screen names it.
func (o *OpenAI) SendsTo() string { return o.host }

// Disclosure says whether analysing an image sends its pixels out of the
// server, to where, and, for one that goes although the screen could not
// vouch for its pixels (an admin allows it), why it could not.
type Disclosure struct {
	To         string
	Sent       bool
	Unscreened string
}

// Discloses says whether analysing in sends it out, and where: the service
// records each send as a disclosure.
func (o *OpenAI) Discloses(in Input) Disclosure {
	if withheldBecause(in.Facts, in.SendUnscreened) != "" {
		return Disclosure{To: o.host}
	}
	_, unvouched := screen(in.Facts)
	return Disclosure{To: o.host, Sent: true, Unscreened: unvouched}
}

// Analyze asks the model. Errors: EUNAVAILABLE when the server fails, is too
// slow, answers more than 1 MiB or something that is not the schema
// (FailureReason says which in plain words).
func (o *OpenAI) Analyze(ctx context.Context, in Input) (Result, error) {
	local, err := Builtin{}.Analyze(ctx, in)
	if err != nil {
		return Result{}, err
	}
	if why := withheldBecause(in.Facts, in.SendUnscreened); why != "" {
		local.Warnings = append(local.Warnings, "Not sent to the external model: "+why+".")
		return local, nil
	}
	_, unvouched := screen(in.Facts)
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
		return Result{}, unavailable("no answer", errUnreadable)
	}
	got, err := parseAnswer(completion.Choices[0].Message.Content)
	if err != nil {
		return Result{}, unavailable("an answer that is not the schema", fmt.Errorf("%w: %w", errUnreadable, err))
	}
	got.Measurements = local.Measurements
	got.Provider, got.Model = o.Name(), modelName(completion.Model)
	if got.Model == "" {
		got.Model = o.model
	}
	got.Warnings = append([]string{"Written by an AI model: it can be wrong and is not a diagnosis."}, got.Warnings...)
	if unvouched != "" {
		got.Warnings = append(got.Warnings, "Sent to the external model unscreened, as an administrator allows: "+unvouched+".")
	}
	got.Provenance = &Provenance{PromptVersion: PromptVersion, SchemaVersion: SchemaVersion,
		ImageSHA256: hex.EncodeToString(sum[:]), DeIdentification: DeIdentification, SentTo: o.host}
	return got.Bounded(), nil
}

func unavailable(what string, err error) error {
	return domain.Wrap(domain.EUNAVAILABLE, fmt.Errorf("analysis: %s: %w", what, err), "The analysis service is not available right now. Please try again later.")
}

var (
	// ErrAnswerTooLong: the model server answered more than maxAnswerBytes.
	ErrAnswerTooLong = errors.New("analysis: the answer is longer than 1 MiB")
	// errUnreadable: an answer without a choice, or outside the schema.
	errUnreadable = errors.New("analysis: unreadable answer")
)

// FailureReason is why an analysis failed, in words for the audit entry
// that the image's patient reads; the error itself, which can name
// addresses, status codes and the library's internals, is for the
// operator's log.
func FailureReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "The analysis service did not answer in time."
	case errors.Is(err, ErrAnswerTooLong):
		return "The analysis service sent an answer that is too long."
	case errors.Is(err, errUnreadable):
		return "The analysis service sent an answer that could not be read."
	}
	return "The analysis service failed."
}

// capAnswer reads the model server's answers, errors included, through a
// limit: the client reads a whole body into memory before it decodes it.
func capAnswer(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res != nil && res.Body != nil {
		res.Body = &cappedBody{ReadCloser: res.Body, left: maxAnswerBytes}
	}
	return res, err
}

// cappedBody passes on at most left bytes, then fails with
// ErrAnswerTooLong if the body goes on.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, ErrAnswerTooLong
		}
		return 0, err
	}
	n, err := b.ReadCloser.Read(p[:min(int64(len(p)), b.left)])
	b.left -= int64(n)
	return n, err
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
// the measurements, and nothing a person typed: the header's words only
// as codes of closed lists (screen.go).
func promptContext(f Facts, m []Measurement) string {
	var b strings.Builder
	if modality := promptModality(f.Modality); modality != "" {
		fmt.Fprintf(&b, "Modality: %s\n", modality)
	}
	if part := promptBodyPart(f.BodyPart); part != "" {
		fmt.Fprintf(&b, "Body part: %s\n", part)
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
	out := Result{Description: cut(*raw.Description, maxDescription), Treatment: entries(*raw.Treatment, maxEntries),
		FollowUp: entries(*raw.FollowUp, maxEntries), Warnings: entries(*raw.Warnings, maxEntries), DifferentialDiagnosis: []Condition{}}
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

func clamp01(v float64) float64 { return max(0, min(1, v)) }
