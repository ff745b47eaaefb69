// Placeholder: the fps-v2 package model is being written.
