import './base.css';
import './compiles.css';
