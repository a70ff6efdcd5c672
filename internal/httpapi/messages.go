package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/medishare/medishare/internal/domain"
	"github.com/medishare/medishare/internal/service"
)

func (a *api) mountMessages(r chi.Router) {
	r.Get("/message/chat-list", a.chatList)
	r.Get("/message/chat/{userId}", a.conversation)
	r.Post("/message/send", a.sendMessage)
	r.Get("/message/stream", a.messageStream)
}

// messageJSON is a message (api.md "Messages").
type messageJSON struct {
	ID          string            `json:"id"`
	SenderID    string            `json:"senderId"`
	RecipientID string            `json:"recipientId"`
	Content     string            `json:"content"`
	CreatedAt   time.Time         `json:"createAt"`
	ReadAt      *time.Time        `json:"readAt"`
	Image       *messageImageJSON `json:"image"`
}

// messageImageJSON is the image a message is about: its id and caption
// while the reader may see it, else only that it is not available.
type messageImageJSON struct {
	Available bool    `json:"available"`
	ID        *string `json:"id,omitempty"`
	Caption   *string `json:"caption,omitempty"`
}

func toMessageJSON(m domain.Message) messageJSON {
	out := messageJSON{ID: m.ID, SenderID: m.SenderID, RecipientID: m.RecipientID, Content: m.Content,
		CreatedAt: m.CreatedAt.UTC(), ReadAt: utcPtr(m.ReadAt)}
	switch {
	case m.Image == nil:
	case m.Image.Unavailable:
		out.Image = &messageImageJSON{}
	default:
		out.Image = &messageImageJSON{Available: true, ID: &m.Image.ID, Caption: &m.Image.Caption}
	}
	return out
}

type chatJSON struct {
	ID          string          `json:"id"`
	Firstname   string          `json:"firstname"`
	Lastname    string          `json:"lastname"`
	Role        string          `json:"role"`
	LastMessage lastMessageJSON `json:"lastMessage"`
	Unread      int             `json:"unread"`
}

type lastMessageJSON struct {
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"createAt"`
	SenderID  string    `json:"senderId"`
}

func (a *api) chatList(w http.ResponseWriter, r *http.Request) {
	chats, err := a.Messages.Chats(r.Context(), principal(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]chatJSON, len(chats))
	for i, c := range chats {
		out[i] = chatJSON{ID: c.Other.ID, Firstname: c.Other.Firstname, Lastname: c.Other.Lastname, Role: c.Role, Unread: c.Unread,
			LastMessage: lastMessageJSON{Content: c.Last.Content, CreatedAt: c.Last.CreatedAt.UTC(), SenderID: c.Last.SenderID}}
	}
	writeOK(w, http.StatusOK, "", out)
}

type conversationPage struct {
	HasMore bool    `json:"hasMore"`
	Before  *string `json:"before"`
}

func (a *api) conversation(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, r, domain.ValidationError("Please check the paging.", domain.FieldError{Field: "limit", Message: "must be a whole number from 1 to 100"}))
			return
		}
		limit = n
	}
	page, more, err := a.Messages.Conversation(r.Context(), principal(r), chi.URLParam(r, "userId"), q.Get("before"), limit, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]messageJSON, len(page))
	for i, m := range page {
		out[i] = toMessageJSON(m)
	}
	pagination := conversationPage{HasMore: more}
	if more {
		pagination.Before = &page[0].ID
	}
	writeJSON(w, http.StatusOK, map[string]any{"message": "", "data": out, "pagination": pagination})
}

type sendMessageRequest struct {
	RecipientID string `json:"recipientId"`
	Content     string `json:"content"`
	ImageID     string `json:"imageId"`
}

func (a *api) sendMessage(w http.ResponseWriter, r *http.Request) {
	var in sendMessageRequest
	if err := readJSON(w, r, maxJSONBody, &in); err != nil {
		writeError(w, r, err)
		return
	}
	m, err := a.Messages.Send(r.Context(), principal(r), service.SendRequest{RecipientID: in.RecipientID, Content: in.Content, ImageID: in.ImageID}, meta(r))
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusCreated, "Message sent.", toMessageJSON(m))
}
