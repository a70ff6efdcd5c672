// Public face of the images feature for the rest of the app.
export type { DicomFacts, MedicalImage, PersonRef } from './api';
